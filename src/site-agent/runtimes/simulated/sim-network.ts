import type { SiteNodeInfo } from '../../node-directory.js';

const HOSTS_PER_SLOT = 253;

/**
 * Addresses of simulated sites. Each site owns the /24 `10.<slot>.0/24` for pod IPs
 * (.2–.254, reused when freed; a site with more live pods borrows the next slots' /24s)
 * and node addresses in 172.16.0.0/12 (16 per slot). Memory: one small record per site
 * that has pods.
 */
export class SimNetwork {
  private readonly pools = new Map<string, { next: number; free: number[]; live: number }>();

  hostIP(node: SiteNodeInfo): string {
    const slot = node.siteSlot;
    return `172.${16 + (slot >> 12)}.${(slot >> 4) & 255}.${((slot & 15) << 4) + 1 + (node.nodeIndex % 15)}`;
  }

  allocate(node: SiteNodeInfo): string {
    let pool = this.pools.get(node.site);
    if (pool === undefined) this.pools.set(node.site, (pool = { next: 0, free: [], live: 0 }));
    const n = pool.free.pop() ?? pool.next++;
    pool.live++;
    const slot = (node.siteSlot + Math.floor(n / HOSTS_PER_SLOT)) & 0xffff;
    return `10.${slot >> 8}.${slot & 255}.${2 + (n % HOSTS_PER_SLOT)}`;
  }

  release(node: SiteNodeInfo, ip: string): void {
    const pool = this.pools.get(node.site);
    const parts = ip.split('.').map(Number);
    if (pool === undefined || parts.length !== 4) return;
    const slot = ((parts[1] ?? 0) << 8) | (parts[2] ?? 0);
    const n = ((slot - node.siteSlot) & 0xffff) * HOSTS_PER_SLOT + (parts[3] ?? 2) - 2;
    pool.free.push(n);
    if (--pool.live === 0) this.pools.delete(node.site);
  }
}
