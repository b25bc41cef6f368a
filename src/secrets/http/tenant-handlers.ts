import type { FastifyRequest } from 'fastify';
import { authenticateRequest } from '../../auth/authenticate.js';
import { authorize, type Access } from '../../auth/authorize.js';
import type { Principal } from '../../auth/principal.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../../config/kinds/index.js';
import { policyDocument, type PolicyDocument } from '../policy-document.js';
import { publicKeyDocument, type PublicKeyDocument } from '../public-key-document.js';
import { SecretError } from '../secret-error.js';
import type { SecretApiDependencies, SecretRoute } from './secret-api-types.js';

/** Parses `key_version`: absent, or a positive integer. */
function parseKeyVersion(raw: unknown): number | undefined {
  const value = Array.isArray(raw) ? (raw[0] as unknown) : raw;
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,9}$/.test(value)) throw new SecretError('InvalidArgument', `key_version: ${JSON.stringify(value)} is not a positive integer`);
  return Number(value);
}

/** The routes tenant credentials call (the caller's tenant comes from its credential). */
export function tenantHandlers(route: SecretRoute, deps: SecretApiDependencies): void {
  const caller = async (request: FastifyRequest, access: Access, namespace: string): Promise<Principal> => {
    const principal = await authenticateRequest(deps.credentials, request.headers, request.raw.socket);
    const decision = authorize(principal, access, namespace);
    if (!decision.allowed) throw new SecretError('PermissionDenied', decision.reason);
    return principal;
  };

  route('/get_public_key', {
    GET: async (request): Promise<PublicKeyDocument> => {
      // Any role in the tenant will do: the public key is meant to be handed around.
      const { tenant } = await caller(request, 'read', 'shared');
      const version = parseKeyVersion((request.query as Record<string, unknown>)['key_version']);
      const key = version === undefined ? await deps.secrets.keys.current(tenant) : await deps.secrets.keys.version(tenant, version);
      if (key === undefined) throw new SecretError('NotFound', `key version ${version ?? ''} of tenant ${tenant} does not exist`);
      return publicKeyDocument(key);
    },
  });

  route('/rotate_key', {
    POST: async (request): Promise<PublicKeyDocument> => {
      const { tenant, user } = await caller(request, 'manage', 'system');
      const key = await deps.secrets.keys.rotate(tenant);
      deps.logger.info({ tenant, user, keyVersion: key.version }, 'blindfold key rotation requested');
      return publicKeyDocument(key);
    },
  });

  route('/namespaces/:namespace/secret_policys/:name/get_policy_document', {
    GET: async (request): Promise<PolicyDocument> => {
      const { namespace = '', name = '' } = request.params as Record<string, string>;
      const principal = await authenticateRequest(deps.credentials, request.headers, request.raw.socket);
      const target = await deps.configService.authorizedTarget(principal, NAMESPACED_KINDS.get('secret_policy') as ConfigKind, namespace, 'read');
      return policyDocument(await deps.configService.registry.get(target, name));
    },
  });
}
