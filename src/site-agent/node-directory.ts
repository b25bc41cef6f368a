import type { RegisterSite } from '../site-api/site-api-types.js';

/** Where a platform Node name (`<site>-<node>`) lives among the agent's sites. */
export interface SiteNodeInfo {
  readonly site: string;
  /** A 16-bit number of the site, distinct for the agent's sites (up to 65,536): its address slot. */
  readonly siteSlot: number;
  readonly nodeIndex: number;
}

export interface NodeDirectory {
  lookup(nodeName: string): SiteNodeInfo | undefined;
  readonly sites: readonly string[];
}

/** FNV-1a, 32 bits: spreads agents' slot ranges so agents on one platform rarely share address slots. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash;
}

/** The node names of the agent's sites: `<site>-<node>` → site, slot (agent hash + site index) and node index. */
export function nodeDirectoryFor(agent: string, sites: readonly RegisterSite[]): NodeDirectory {
  const base = fnv1a(agent);
  const nodes = new Map<string, SiteNodeInfo>();
  sites.forEach((site, i) => {
    const siteSlot = (base + i) & 0xffff;
    site.nodes.forEach((node, nodeIndex) => nodes.set(`${site.name}-${node.name}`, { site: site.name, siteSlot, nodeIndex }));
  });
  return { lookup: (name) => nodes.get(name), sites: sites.map((s) => s.name) };
}
