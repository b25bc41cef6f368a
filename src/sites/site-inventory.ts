import type { SITE_STATES } from '../config/kinds/site.js';
import type { KubeObject } from '../vk8s/object.js';

/** A site's state (src/config/kinds/site.ts SITE_STATES). */
export type SiteState = (typeof SITE_STATES)[number];

export interface SiteNode { readonly site: string; readonly node: KubeObject /* a core/v1 Node: name, labels, capacity, allocatable, conditions */ }
export interface SiteInventory {
  nodesOf(site: string): readonly KubeObject[];      // current Node objects of a site (empty when unknown)
  stateOf(site: string): SiteState | undefined;       // 'ONLINE' | 'FAILED' | … (src/config/kinds/site.ts SITE_STATES)
  /** Per-vK8s CPU (millicores) and memory (bytes) allowed on a regional-edge site; undefined = unlimited. */
  quotaOf(site: string): { readonly cpuMillis: number; readonly memoryBytes: number } | undefined;
  onChange(handler: (site: string) => void): void;
}
