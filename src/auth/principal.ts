/** A namespace role, from least to most: read; read and write objects; and manage the namespace. */
export type Role = 'monitor' | 'editor' | 'admin';

export const ROLES: readonly Role[] = ['monitor', 'editor', 'admin'];

/** The platform's own tenant: owns `svc-io-system` and `svc-io-shared`. */
export const PLATFORM_TENANT = 'svc-io';
export const PLATFORM_NAMESPACES: readonly string[] = ['svc-io-system', 'svc-io-shared'];
export const TENANT_NAMESPACES: readonly string[] = ['default', 'shared', 'system'];

/** Who is calling, as established from its credential; never from the request. */
export interface Principal {
  readonly tenant: string;
  /** The user the credential was issued to, e.g. `admin@acme`. */
  readonly user: string;
  /** The credential used (its name), for audit. */
  readonly credential: string;
  /** Role per namespace; `*` applies to every namespace of the tenant. */
  readonly roles: Readonly<Record<string, Role>>;
}

export function isPlatformNamespace(namespace: string): boolean {
  return PLATFORM_NAMESPACES.includes(namespace);
}
