import type { FastifyRequest } from 'fastify';
import { authorize } from '../../auth/authorize.js';
import { CREDENTIAL_TYPES, type CredentialRecord, type CredentialType, MAX_EXPIRATION_DAYS } from '../../auth/credentials.js';
import { PLATFORM_TENANT, type Principal, type Role } from '../../auth/principal.js';
import { ConfigError } from '../errors.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../kinds/index.js';
import { kubeconfigFor } from '../kubeconfig.js';
import type { ConfigApiDependencies, RouteFunction } from './config-api-types.js';

function requireAdmin(principal: Principal): void {
  const decision = authorize(principal, 'manage', 'system');
  if (!decision.allowed) throw new ConfigError('PermissionDenied', `managing credentials needs the admin role in namespace system: ${decision.reason}`);
}

function summary(record: CredentialRecord): Record<string, unknown> {
  return {
    name: record.name,
    namespace: 'system',
    type: record.type,
    user: record.user,
    active: record.active,
    created: record.created,
    expiration_timestamp: record.expiration_timestamp,
    roles: record.roles,
    ...(record.virtual_k8s === undefined ? {} : { virtual_k8s_namespace: record.virtual_k8s.namespace, virtual_k8s_name: record.virtual_k8s.name }),
  };
}

interface CreateBody {
  name?: unknown;
  namespace?: unknown;
  expiration_days?: unknown;
  spec?: { type?: unknown; virtual_k8s_name?: unknown; virtual_k8s_namespace?: unknown; namespace_roles?: unknown };
}

function parseRoles(raw: unknown): Record<string, Role> | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw ConfigError.invalid('spec.namespace_roles: must be a list of {namespace, role}');
  const roles: Record<string, Role> = {};
  raw.forEach((entry: unknown, i) => {
    const e = entry as { namespace?: unknown; role?: unknown } | null;
    if (typeof e?.namespace !== 'string' || typeof e.role !== 'string') throw ConfigError.invalid(`spec.namespace_roles[${i}]: needs a namespace and a role`);
    roles[e.namespace] = e.role as Role;
  });
  return roles;
}

/**
 * `/api/web/namespaces/system/api_credentials`: issue (API_TOKEN, API_CERTIFICATE,
 * KUBE_CONFIG), list, read and revoke credentials of the caller's tenant; and, for the
 * platform's operators, `/api/web/tenants` to create tenants.
 */
export function credentialRoutes(route: RouteFunction, deps: ConfigApiDependencies, body: (r: FastifyRequest) => unknown): void {
  route('/web/namespaces/system/api_credentials', {
    GET: async (principal) => {
      requireAdmin(principal);
      return { items: (await deps.credentials.list(principal.tenant)).map(summary) };
    },
    POST: async (principal, request) => {
      requireAdmin(principal);
      const b = (body(request) ?? {}) as CreateBody;
      if (typeof b !== 'object' || Array.isArray(b)) throw ConfigError.invalid('request body must be a JSON object');
      for (const key of Object.keys(b)) if (!['name', 'namespace', 'expiration_days', 'spec'].includes(key)) throw ConfigError.invalid(`${key}: unknown field`);
      if (typeof b.name !== 'string') throw ConfigError.invalid('name: is required');
      if (b.namespace !== undefined && b.namespace !== 'system') throw ConfigError.invalid('namespace: credentials live in namespace system');
      const type = b.spec?.type;
      if (typeof type !== 'string' || !(CREDENTIAL_TYPES as readonly string[]).includes(type)) {
        throw ConfigError.invalid(`spec.type: must be one of ${CREDENTIAL_TYPES.join(', ')}`);
      }
      const expirationDays = b.expiration_days ?? 30;
      if (typeof expirationDays !== 'number') throw ConfigError.invalid(`expiration_days: must be a number from 1 to ${MAX_EXPIRATION_DAYS}`);
      const roles = parseRoles(b.spec?.namespace_roles);
      let virtualK8s: { namespace: string; name: string } | undefined;
      if (type === 'KUBE_CONFIG') {
        const vk8sName = b.spec?.virtual_k8s_name;
        const vk8sNamespace = b.spec?.virtual_k8s_namespace;
        if (typeof vk8sName !== 'string' || typeof vk8sNamespace !== 'string') throw ConfigError.invalid('spec.virtual_k8s_name and spec.virtual_k8s_namespace: are required for KUBE_CONFIG');
        await deps.service.get(principal, NAMESPACED_KINDS.get('virtual_k8s') as ConfigKind, vk8sNamespace, vk8sName, 'GET_RSP_FORMAT_READ');
        virtualK8s = { namespace: vk8sNamespace, name: vk8sName };
      }
      const issued = await deps.credentials.issue(principal, {
        name: b.name,
        type: type as CredentialType,
        expirationDays,
        ...(roles === undefined ? {} : { roles }),
        ...(virtualK8s === undefined ? {} : { virtualK8s }),
      });
      const secret = issued.secret;
      let data: string;
      if ('token' in secret) data = secret.token;
      else if (virtualK8s !== undefined) data = Buffer.from(kubeconfigFor({ server: deps.publicUrl(), virtualK8s, user: issued.record.user, ...secret })).toString('base64');
      else data = Buffer.from(secret.key + secret.certificate).toString('base64');
      return { name: issued.record.name, data, active: issued.record.active, expiration_timestamp: issued.record.expiration_timestamp };
    },
  });
  route('/web/namespaces/system/api_credentials/:name', {
    GET: async (principal, request) => {
      requireAdmin(principal);
      return summary(await deps.credentials.get(principal.tenant, (request.params as { name: string }).name));
    },
  });
  route('/web/namespaces/system/revoke/api_credentials', {
    POST: async (principal, request) => {
      requireAdmin(principal);
      const b = (body(request) ?? {}) as { name?: unknown };
      if (typeof b.name !== 'string') throw ConfigError.invalid('name: is required');
      await deps.credentials.revoke(principal.tenant, b.name);
      return {};
    },
  });
  route('/web/tenants', {
    POST: async (principal, request) => {
      if (principal.tenant !== PLATFORM_TENANT || principal.roles['*'] !== 'admin') {
        throw new ConfigError('PermissionDenied', 'only the platform\'s administrators create tenants');
      }
      const b = (body(request) ?? {}) as { name?: unknown };
      if (typeof b.name !== 'string') throw ConfigError.invalid('name: is required');
      return { name: b.name, admin_token: await deps.tenants.createTenant(b.name) };
    },
  });
}
