import { Command, InvalidArgumentError, Option } from 'commander';
import { MAX_TOKEN_TTL_SECONDS } from '../identity/bootstrap-tokens.js';
import { addConnectionOptions, ApiClient, type ConnectionOptions } from './api-client.js';

interface TokenOptions extends ConnectionOptions {
  namespace: string;
  vk8s: string;
  pod: string;
  ttlSeconds?: number;
}

function ttlArgument(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_TOKEN_TTL_SECONDS) throw new InvalidArgumentError(`must be a whole number of seconds from 1 to ${MAX_TOKEN_TTL_SECONDS}`);
  return n;
}

/**
 * `edgeplane identity token --namespace N --vk8s V --pod P`: mints a bootstrap token for an
 * existing pod (an admin of the namespace; recorded as an Event on the pod) and prints it,
 * for a sidecar run by hand (`edgeplane sidecar --token-file`).
 */
export function identityCommand(): Command {
  const identity = new Command('identity').description('Workload identity: bootstrap tokens for pods.');
  identity.addCommand(
    addConnectionOptions(new Command('token'))
      .description('Mint a bootstrap token for an existing pod and print it (recorded in an audit Event on the pod).')
      .requiredOption('-n, --namespace <namespace>', 'the namespace of the virtual_k8s object')
      .requiredOption('--vk8s <name>', 'the virtual_k8s object')
      .requiredOption('--pod <name>', 'the pod (it must be bound to a site)')
      .addOption(new Option('--ttl-seconds <seconds>', `seconds until the token expires (1–${MAX_TOKEN_TTL_SECONDS}; default 600)`).argParser(ttlArgument))
      .action(async (o: TokenOptions) => {
        const issued = await new ApiClient(o).call<{ token: string }>('POST', '/api/identity/v1/tokens', {
          namespace: o.namespace,
          vk8s: o.vk8s,
          pod: o.pod,
          ...(o.ttlSeconds === undefined ? {} : { ttl_seconds: o.ttlSeconds }),
        });
        process.stdout.write(issued.token + '\n');
      }),
  );
  return identity;
}
