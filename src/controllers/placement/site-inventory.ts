import type { SITE_STATES } from '../../config/kinds/site.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { SiteRuntime } from '../../site-api/site-model.js';

/** A site's state as its config object's status says (src/config/kinds/site.ts). */
export type SiteState = (typeof SITE_STATES)[number];

/**
 * What the control plane knows of the sites (contract (4) of issue 5), from memory: the
 * scheduler and the node views read it. Node names are `<site>-<node-name>`; every Node has
 * the labels `svc.io/siteName=<site>` and `kubernetes.io/hostname`. Objects are shared:
 * never mutate them.
 */
export interface SiteInventory {
  /** Current Node objects of a site (empty when unknown). */
  nodesOf(site: string): readonly KubeObject[];
  /** The state in the site object's status: 'ONLINE' | 'FAILED' | …; undefined for an unknown site. */
  stateOf(site: string): SiteState | undefined;
  /** Per-vK8s CPU (millicores) and memory (bytes) allowed on a regional-edge site; undefined = unlimited. */
  quotaOf(site: string): { readonly cpuMillis: number; readonly memoryBytes: number } | undefined;
  /** How the site runs pods, as its last registration said (`runtimeRunsSidecars` tells whether its pods get the sidecar); undefined for an unknown site. */
  runtimeOf(site: string): SiteRuntime | undefined;
  /** Told the name of each site whose nodes, state, lease, quota or runtime changed. */
  onChange(handler: (site: string) => void): void;
}
