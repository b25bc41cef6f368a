/** Where configuration objects live in the store: `/config/<tenant>/<kind>/<namespace>/<name>`. */

/** The namespace segment of namespace objects themselves (whose own namespace is ""). */
const NO_NAMESPACE = '_';

export function objectKey(tenant: string, kind: string, namespace: string, name: string): string {
  return `/config/${tenant}/${kind}/${namespace === '' ? NO_NAMESPACE : namespace}/${name}`;
}

/** Every object of a kind in one namespace of a tenant. */
export function namespacePrefix(tenant: string, kind: string, namespace: string): string {
  return `/config/${tenant}/${kind}/${namespace === '' ? NO_NAMESPACE : namespace}/`;
}

/** Every object of a kind in a tenant. */
export function kindPrefix(tenant: string, kind: string): string {
  return `/config/${tenant}/${kind}/`;
}
