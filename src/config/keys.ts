/**
 * Where configuration objects live in the store: `/config/<tenant>/<kind>/<namespace>/<name>`.
 * Namespaces themselves live under `/namespaces/<tenant>/<name>`, one prefix for every
 * tenant, so one cache can answer "does this namespace exist" for all requests.
 */
export const NAMESPACES_PREFIX = '/namespaces/';

export function objectKey(tenant: string, kind: string, namespace: string, name: string): string {
  return kind === 'namespace' ? `${NAMESPACES_PREFIX}${tenant}/${name}` : `/config/${tenant}/${kind}/${namespace}/${name}`;
}

/** Every object of a kind in one namespace of a tenant. */
export function namespacePrefix(tenant: string, kind: string, namespace: string): string {
  return kind === 'namespace' ? `${NAMESPACES_PREFIX}${tenant}/` : `/config/${tenant}/${kind}/${namespace}/`;
}

/** Every object of a kind in a tenant. */
export function kindPrefix(tenant: string, kind: string): string {
  return kind === 'namespace' ? `${NAMESPACES_PREFIX}${tenant}/` : `/config/${tenant}/${kind}/`;
}
