import { Command, InvalidArgumentError, Option } from 'commander';
import { addConnectionOptions, ApiClient, type ConnectionOptions } from './api-client.js';
import { render, renderTable } from './output.js';

interface CreateOptions extends ConnectionOptions {
  expirationDays: number;
  type: string;
  role: Array<{ namespace: string; role: string }>;
  vk8s?: string;
}

function roleArgument(value: string, previous: Array<{ namespace: string; role: string }> = []): Array<{ namespace: string; role: string }> {
  const match = /^([^=]+)=(admin|editor|monitor)$/.exec(value);
  if (match === null) throw new InvalidArgumentError(`"${value}" is not namespace=role (roles: admin, editor, monitor; namespace * for all)`);
  return [...previous, { namespace: match[1] ?? '', role: match[2] ?? '' }];
}

/** `edgeplane token create|list|revoke`: API credentials of the caller's tenant. */
export function tokenCommand(): Command {
  const token = new Command('token').description('Manage API credentials (tokens, certificates, kubeconfigs).');
  token.addCommand(
    addConnectionOptions(new Command('create'))
      .description('Issue a credential and print its secret (shown once).')
      .argument('<name>')
      .addOption(new Option('--expiration-days <days>', 'days until it expires (1–90)').default(30).argParser((v) => Number(v)))
      .addOption(new Option('--type <type>').choices(['API_TOKEN', 'API_CERTIFICATE', 'KUBE_CONFIG']).default('API_TOKEN'))
      .addOption(new Option('--role <namespace=role>', 'a role it carries (repeatable; default: yours)').argParser(roleArgument))
      .addOption(new Option('--vk8s <namespace/name>', 'the virtual cluster of a KUBE_CONFIG'))
      .action(async (name: string, o: CreateOptions) => {
        const [vk8sNamespace, vk8sName] = (o.vk8s ?? '').split('/');
        const spec: Record<string, unknown> = { type: o.type, ...(o.role === undefined ? {} : { namespace_roles: o.role }) };
        if (o.type === 'KUBE_CONFIG') Object.assign(spec, { virtual_k8s_namespace: vk8sNamespace, virtual_k8s_name: vk8sName });
        const issued = await new ApiClient(o).call<{ data: string }>('POST', '/api/web/namespaces/system/api_credentials', { name, namespace: 'system', expiration_days: o.expirationDays, spec });
        process.stdout.write(o.type === 'API_TOKEN' ? issued.data + '\n' : Buffer.from(issued.data, 'base64').toString('utf8'));
      }),
  );
  token.addCommand(
    addConnectionOptions(new Command('list'))
      .description('List the credentials of your tenant (never their secrets).')
      .addOption(new Option('-o, --output <format>').choices(['json', 'yaml', 'table']).default('table'))
      .action(async (o: ConnectionOptions & { output: 'json' | 'yaml' | 'table' }) => {
        const list = await new ApiClient(o).call<{ items: Array<Record<string, unknown>> }>('GET', '/api/web/namespaces/system/api_credentials');
        if (o.output !== 'table') return void process.stdout.write(render(list, o.output));
        const rows = list.items.map((i) => [String(i['name']), String(i['type']), String(i['user']), i['active'] === true ? 'true' : 'false', String(i['expiration_timestamp'])]);
        process.stdout.write(renderTable(['NAME', 'TYPE', 'USER', 'ACTIVE', 'EXPIRES'], rows));
      }),
  );
  token.addCommand(
    addConnectionOptions(new Command('revoke'))
      .description('Revoke a credential at once.')
      .argument('<name>')
      .action(async (name: string, o: ConnectionOptions) => {
        await new ApiClient(o).call('POST', '/api/web/namespaces/system/revoke/api_credentials', { name, namespace: 'system' });
        process.stdout.write(`credential "${name}" revoked\n`);
      }),
  );
  return token;
}
