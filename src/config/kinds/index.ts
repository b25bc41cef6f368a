import { dnsDomain } from './dns-domain.js';
import { forwardingClass } from './forwarding-class.js';
import type { ConfigKind } from './kind.js';
import { namespaceKind } from './namespace.js';
import { policer } from './policer.js';
import { secretManagementAccess } from './secret-management-access.js';
import { secretPolicy } from './secret-policy.js';
import { site } from './site.js';
import { virtualK8s } from './virtual-k8s.js';
import { virtualSite } from './virtual-site.js';
import { workloadFlavor } from './workload-flavor.js';

export type { ConfigKind } from './kind.js';

/** Every namespaced configuration kind, by name. */
export const NAMESPACED_KINDS: ReadonlyMap<string, ConfigKind> = new Map(
  [dnsDomain, forwardingClass, policer, virtualSite, site, virtualK8s, workloadFlavor, secretManagementAccess, secretPolicy].map((k) => [k.kind, k]),
);

export const NAMESPACE_KIND = namespaceKind;

/** The kind served at `/api/<slug>/namespaces/{ns}/<plural>`, if any. Plural = kind + "s". */
export function kindForPath(slug: string, plural: string): ConfigKind | undefined {
  if (!plural.endsWith('s')) return undefined;
  const kind = NAMESPACED_KINDS.get(plural.slice(0, -1));
  return kind?.slug === slug ? kind : undefined;
}
