import { isIP } from 'node:net';
import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';
import { secretInfoFields, secretInfoOneOf, secretInfoSchema } from './secret-info.js';

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]*[A-Za-z0-9])?)*$/;

/** Why a `host:port` endpoint is not valid, or undefined when it is. */
function endpointProblem(endpoint: string): string | undefined {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(endpoint);
  if (match === null) return `"${endpoint}" is not host:port`;
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  if (port < 1 || port > 65535) return `port ${port} is not between 1 and 65535`;
  if (match[1] !== undefined ? isIP(host) !== 6 : isIP(host) === 0 && !HOSTNAME.test(host)) return `"${host}" is not a host name or IP address`;
  return undefined;
}

/** How workloads reach an external secret store (Vault): endpoint, TLS, and credentials. */
export const secretManagementAccess: ConfigKind = {
  kind: 'secret_management_access',
  slug: 'config',
  description: 'Connection and credentials for an external secret store (HashiCorp Vault).',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object(
    {
      provider_name: schema.string({ minLength: 1 }),
      access_info: schema.object(
        {
          server_endpoint: schema.string({ description: 'host:port' }),
          scheme: schema.enumOf(['HTTP', 'HTTPS'], 'HTTPS'),
          tls_config: schema.nullable(
            schema.object({
              trusted_ca_url: schema.string({ pattern: '^string:///[A-Za-z0-9+/=]*$', description: 'string:///<base64 PEM bundle>' }),
              sni: schema.string(),
              skip_server_verification: schema.boolean({ default: false }),
            }),
          ),
        },
        ['server_endpoint'],
      ),
      vault_auth_info: schema.nullable(
        schema.object({
          token: secretInfoSchema('A Vault token.'),
          app_role_auth: schema.nullable(schema.object({ role_id: schema.string({ minLength: 1 }), secret_id: secretInfoSchema('The AppRole secret_id.') }, ['role_id', 'secret_id'])),
        }),
      ),
    },
    ['provider_name', 'access_info'],
  ),
  oneOfs: [
    { members: ['vault_auth_info'] },
    { at: ['vault_auth_info'], members: ['token', 'app_role_auth'] },
    secretInfoOneOf(['vault_auth_info', 'token']),
    secretInfoOneOf(['vault_auth_info', 'app_role_auth', 'secret_id']),
  ],
  secretFields: [...secretInfoFields(['vault_auth_info', 'token']), ...secretInfoFields(['vault_auth_info', 'app_role_auth', 'secret_id'])],
  validate(spec) {
    const problem = endpointProblem((spec['access_info'] as { server_endpoint: string }).server_endpoint);
    return problem === undefined ? [] : [`spec.access_info.server_endpoint: ${problem}`];
  },
};
