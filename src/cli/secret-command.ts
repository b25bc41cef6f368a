import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { blindfoldEncrypt } from '../secrets/blindfold-encrypt.js';
import { encryptionTargetFrom } from '../secrets/encryption-target.js';
import { addConnectionOptions, ApiClient, type ConnectionOptions } from './api-client.js';

function positiveInteger(value: string): number {
  if (!/^[1-9][0-9]*$/.test(value)) throw new InvalidArgumentError(`"${value}" is not a positive integer`);
  return Number(value);
}

function readJsonFile(path: string, what: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`cannot read the ${what} ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function readStdin(): Promise<Buffer> {
  if (process.stdin.isTTY) process.stderr.write('reading the secret from standard input (end it with Ctrl-D)\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const print = (value: unknown): void => void process.stdout.write(JSON.stringify(value, null, 2) + '\n');

/** `edgeplane secret …`: blindfold secrets — fetch the two documents, encrypt offline, rotate the key. */
export function secretCommand(): Command {
  const secret = new Command('secret').description('Blindfold secrets: public key, policy documents, offline encryption, key rotation.');
  secret.addCommand(
    addConnectionOptions(new Command('get-public-key'))
      .description("Print your tenant's blindfold public key document (JSON; save it for `secret encrypt`).")
      .addOption(new Option('--key-version <n>', 'a given key version (default: the newest)').argParser(positiveInteger))
      .action(async (o: ConnectionOptions & { keyVersion?: number }) => {
        print(await new ApiClient(o).call('GET', `/api/secret_management/get_public_key${o.keyVersion === undefined ? '' : `?key_version=${o.keyVersion}`}`));
      }),
  );
  secret.addCommand(
    addConnectionOptions(new Command('get-policy-document'))
      .description('Print a secret policy\'s document (JSON; save it for `secret encrypt`).')
      .requiredOption('-n, --namespace <namespace>', 'namespace of the secret_policy object')
      .requiredOption('--name <policy>', 'name of the secret_policy object')
      .action(async (o: ConnectionOptions & { namespace: string; name: string }) => {
        const path = `/api/secret_management/namespaces/${encodeURIComponent(o.namespace)}/secret_policys/${encodeURIComponent(o.name)}/get_policy_document`;
        print(await new ApiClient(o).call('GET', path));
      }),
  );
  secret.addCommand(
    new Command('encrypt')
      .description('Encrypt standard input for the platform, offline, and print its string:///… location (for blindfold_secret_info or the sidecar).')
      .requiredOption('--public-key <file>', 'the public key document (edgeplane secret get-public-key)')
      .requiredOption('--policy-document <file>', 'the policy document (edgeplane secret get-policy-document)')
      .option('--base64', 'Base64-encode the input before encryption (unseal with encoding_type EncodingBase64 returns the original bytes; for binary secrets)')
      .action(async (o: { publicKey: string; policyDocument: string; base64?: boolean }) => {
        const target = encryptionTargetFrom(readJsonFile(o.publicKey, 'public key document'), readJsonFile(o.policyDocument, 'policy document'));
        const input = await readStdin();
        const plaintext = o.base64 === true ? Buffer.from(input.toString('base64'), 'ascii') : input;
        process.stdout.write((await blindfoldEncrypt(plaintext, target)) + '\n');
      }),
  );
  secret.addCommand(
    addConnectionOptions(new Command('rotate-key'))
      .description("Add a new version of your tenant's blindfold key pair (needs admin in namespace system) and print its public key document. Earlier versions still decrypt.")
      .action(async (o: ConnectionOptions) => {
        print(await new ApiClient(o).call('POST', '/api/secret_management/rotate_key'));
      }),
  );
  return secret;
}
