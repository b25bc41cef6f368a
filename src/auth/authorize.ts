import { isPlatformNamespace, PLATFORM_TENANT, type Principal, type Role } from './principal.js';

/** What a request does to a namespace. */
export type Access = 'read' | 'write' | 'manage';

const RANK: Readonly<Record<Role, number>> = { monitor: 1, editor: 2, admin: 3 };
const NEEDED: Readonly<Record<Access, number>> = { read: 1, write: 2, manage: 3 };

export function roleIn(principal: Principal, namespace: string): Role | undefined {
  return principal.roles[namespace] ?? principal.roles['*'];
}

/**
 * Pure: may `principal` do `access` in `namespace` (a namespace of its own tenant, or a
 * platform namespace)? Rules:
 * - the role for the namespace (or `*`) must rank at least monitor/editor/admin for read/write/manage;
 * - `shared` is readable by anyone with a role somewhere in the tenant;
 * - the platform namespaces are readable by every tenant, writable only by the platform tenant.
 * Resolves to the reason when denied.
 */
export function authorize(principal: Principal, access: Access, namespace: string): { allowed: true } | { allowed: false; reason: string } {
  const platform = isPlatformNamespace(namespace);
  if (platform && access === 'read') return { allowed: true };
  if (platform && principal.tenant !== PLATFORM_TENANT) {
    return { allowed: false, reason: `namespace ${namespace} belongs to the platform and is read-only for tenants` };
  }
  if (access === 'read' && namespace === 'shared' && Object.keys(principal.roles).length > 0) return { allowed: true };
  const role = roleIn(principal, namespace);
  if (role !== undefined && RANK[role] >= NEEDED[access]) return { allowed: true };
  const needed = access === 'read' ? 'monitor' : access === 'write' ? 'editor' : 'admin';
  return {
    allowed: false,
    reason: `user ${principal.user} has ${role === undefined ? 'no role' : `role ${role}`} in namespace ${namespace}; ${access} needs ${needed} or above`,
  };
}
