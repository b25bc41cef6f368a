import { envelope, type KvV1Engine, type KvV2Engine, vaultError, type VaultResponse } from './kv-engines.js';
import { pathAllowed, type TestToken, type VaultAuth } from './vault-auth.js';

export interface VaultState {
  readonly auth: VaultAuth;
  /** Secret engines by mount path (one segment, e.g. `secret`). */
  readonly mounts: Map<string, KvV1Engine | KvV2Engine>;
  sealed: boolean;
  readonly requestId: () => string;
}

export interface VaultRequest {
  readonly method: string;
  /** The URL path, e.g. `/v1/secret/data/app`. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** From `X-Vault-Token` or `Authorization: Bearer`. */
  readonly token: string | undefined;
  readonly body: unknown;
}

function authResponse(state: VaultState, token: TestToken, leaseDuration: number, metadata: Record<string, string> | null): VaultResponse {
  return {
    status: 200,
    body: {
      ...envelope(state.requestId(), null),
      auth: {
        client_token: token.id,
        accessor: state.requestId(),
        policies: ['default'],
        token_policies: ['default'],
        metadata,
        lease_duration: leaseDuration,
        renewable: token.renewable,
        entity_id: '',
        token_type: 'service',
        orphan: true,
      },
    },
  };
}

function appRoleLogin(state: VaultState, body: unknown): VaultResponse {
  const { role_id: roleId, secret_id: secretId } = (body ?? {}) as { role_id?: unknown; secret_id?: unknown };
  if (typeof roleId !== 'string' || roleId === '') return vaultError(400, 'missing role_id');
  const token = state.auth.login(roleId, typeof secretId === 'string' ? secretId : '');
  if (token === undefined) return vaultError(400, 'invalid role or secret ID');
  const role = state.auth.appRoles.get(roleId);
  return authResponse(state, token, token.ttlSeconds, { role_name: role?.name ?? '' });
}

/**
 * Pure over the state: one request of Vault's HTTP API as the Vault documentation describes
 * it — KV v1 and v2 reads and writes, token auth (`X-Vault-Token`), AppRole login, token
 * renew-self, `{"errors": [...]}` with Vault's status codes. A stand-in for tests, not Vault.
 */
export function handleVaultRequest(state: VaultState, request: VaultRequest): VaultResponse {
  if (state.sealed) return vaultError(503, 'Vault is sealed');
  if (!request.path.startsWith('/v1/')) return vaultError(404);
  const path = request.path.slice('/v1/'.length).replace(/\/+$/, '');
  if (path === 'auth/approle/login') return request.method === 'POST' || request.method === 'PUT' ? appRoleLogin(state, request.body) : vaultError(405, 'unsupported operation');
  if (request.token === undefined || request.token === '') return vaultError(400, 'missing client token');
  const token = state.auth.lookup(request.token);
  if (token === undefined) return vaultError(403, 'permission denied');
  if (path === 'auth/token/renew-self') {
    if (request.method !== 'POST' && request.method !== 'PUT') return vaultError(405, 'unsupported operation');
    if (!token.renewable) return vaultError(400, 'lease is not renewable');
    return authResponse(state, token, state.auth.renew(token), null);
  }
  const [mount = '', ...rest] = path.split('/');
  const engine = state.mounts.get(mount);
  if (engine === undefined) return vaultError(404, `no handler for route "${path}". route entry not found.`);
  if (!pathAllowed(token.paths, path)) return vaultError(403, 'permission denied');
  if (engine.version === 1) return rest.length === 0 ? vaultError(404) : engine.handle(request.method, rest.join('/'), request.body, state.requestId());
  const [kind = '', ...secretPath] = rest;
  if (kind !== 'data' && kind !== 'metadata') return vaultError(404, `no handler for route "${path}". route entry not found.`);
  if (secretPath.length === 0) return vaultError(404);
  return engine.handle(request.method, kind, secretPath.join('/'), request.query, request.body, state.requestId());
}
