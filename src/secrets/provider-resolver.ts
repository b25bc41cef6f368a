import { dns1035LabelProblems } from '../apimachinery/index.js';
import type { StoredObject } from '../config/envelope.js';
import { objectKey } from '../config/keys.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../config/kinds/index.js';
import { openSecretFields } from '../config/secret-fields.js';
import type { ValueTransformer } from '../common/envelope-encryption.js';
import type { BlindfoldUnsealer, ConfigSource } from './blindfold-unsealer.js';
import type { PodIdentity } from './ports.js';
import { SecretError } from './secret-error.js';
import { decodeStringUrl, resolveSecretField } from './secret-field.js';
import type { ResolvedProvider, ResolvedVaultAuth } from './resolved-provider.js';

interface AccessSpec {
  provider_name: string;
  access_info: { server_endpoint: string; scheme?: 'HTTP' | 'HTTPS'; tls_config?: { trusted_ca_url?: string; sni?: string; skip_server_verification?: boolean } | null };
  vault_auth_info?: { token?: unknown; app_role_auth?: { role_id: string; secret_id: unknown } | null } | null;
}

const ACCESS_KIND = NAMESPACED_KINDS.get('secret_management_access') as ConfigKind;

/**
 * The provider (a secret_management_access object) a pod names, from the pod's namespace or
 * else its tenant's `shared` namespace, with its credentials resolved for that pod: blindfolded
 * ones are unsealed under their policy, which must allow the pod.
 */
export async function resolveProvider(
  name: string,
  caller: PodIdentity,
  deps: { readonly config: ConfigSource; readonly unsealer: BlindfoldUnsealer; readonly encryption?: ValueTransformer },
): Promise<ResolvedProvider> {
  // secret_management_access names are DNS-1035 labels: anything else is the caller's mistake, not a key to read.
  const problems = dns1035LabelProblems(name);
  if (problems.length > 0) throw new SecretError('InvalidArgument', `provider "${name}": ${problems.join('; ')}`);
  let object: StoredObject | undefined;
  for (const namespace of [...new Set([caller.namespace, 'shared'])]) {
    const kv = await deps.config.get(objectKey(caller.tenant, 'secret_management_access', namespace, name));
    if (kv !== undefined) {
      // Its secret fields are encrypted at rest.
      object = openSecretFields(ACCESS_KIND, kv.key, JSON.parse(kv.value) as StoredObject, deps.encryption);
      break;
    }
  }
  if (object === undefined) throw new SecretError('ProviderNotFound', `secret_management_access ${name} does not exist in namespace ${caller.namespace} or shared`);
  const spec = object.spec as unknown as AccessSpec;
  const tlsConfig = spec.access_info.tls_config ?? undefined;
  const trustedCa = tlsConfig?.trusted_ca_url === undefined || tlsConfig.trusted_ca_url === '' ? undefined : decodeStringUrl(tlsConfig.trusted_ca_url);
  const timeouts: number[] = [];
  const secret = async (field: unknown, what: string): Promise<string> => {
    const resolved = await resolveSecretField(field, caller, deps.unsealer, what);
    if (resolved.cacheTimeoutSeconds > 0) timeouts.push(resolved.cacheTimeoutSeconds);
    return resolved.value.toString('utf8');
  };
  const vault = spec.vault_auth_info ?? undefined;
  let auth: ResolvedVaultAuth = { type: 'none' };
  if (vault?.token !== undefined && vault.token !== null) auth = { type: 'token', token: await secret(vault.token, 'vault_auth_info.token') };
  else if (vault?.app_role_auth !== undefined && vault.app_role_auth !== null) {
    auth = { type: 'app_role', role_id: vault.app_role_auth.role_id, secret_id: await secret(vault.app_role_auth.secret_id, 'vault_auth_info.app_role_auth.secret_id') };
  }
  return {
    name: object.metadata.name,
    namespace: object.metadata.namespace,
    provider_name: spec.provider_name,
    server_endpoint: spec.access_info.server_endpoint,
    scheme: spec.access_info.scheme ?? 'HTTPS',
    tls: {
      ...(trustedCa === undefined ? {} : { trusted_ca_pem: trustedCa.toString('utf8') }),
      ...(tlsConfig?.sni === undefined || tlsConfig.sni === '' ? {} : { sni: tlsConfig.sni }),
      skip_server_verification: tlsConfig?.skip_server_verification ?? false,
    },
    auth,
    cache_timeout_seconds: timeouts.length === 0 ? 0 : Math.min(...timeouts),
  };
}
