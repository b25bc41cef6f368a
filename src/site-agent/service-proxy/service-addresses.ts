import type { IpCommand } from '../host/index.js';

/**
 * The interface holding a site's Service addresses: the site namespace's loopback. (kube-proxy's
 * IPVS mode uses a dummy interface, `kube-ipvs0`; these machines' kernels have no dummy
 * module, and an address on `lo` is just as local.)
 */
const INTERFACE = 'lo';

/**
 * The local addresses of a site's Services — ClusterIPs the site proxy listens on, and its
 * clusters' DNS listeners — as /32s on the loopback of the site's network namespace.
 * Pods reach them through their default route (the site gateway); being local, they are
 * delivered to the proxy without any forwarding, and nothing outside the site sees them.
 */
export class ServiceAddresses {
  private present = new Set<string>();

  constructor(
    private readonly ip: IpCommand,
    private readonly netns: string,
  ) {}

  /** Reads the addresses an earlier agent left (the site network brings `lo` up). */
  async ensure(): Promise<void> {
    const shown = await this.ip.run(['-n', this.netns, '-o', 'addr', 'show', 'dev', INTERFACE]);
    this.present = new Set([...shown.matchAll(/\binet (\d+\.\d+\.\d+\.\d+)\/32\b/g)].map((m) => m[1] as string));
  }

  /** Adds those of `addresses` not there yet (before a proxy binds them). */
  async add(addresses: Iterable<string>): Promise<void> {
    const missing = [...new Set(addresses)].filter((a) => !this.present.has(a));
    if (missing.length === 0) return;
    await this.ip.batch(missing.map((a) => `addr add ${a}/32 dev ${INTERFACE}`), this.netns);
    for (const a of missing) this.present.add(a);
  }

  /** Removes every address not in `keep` (after the proxy stopped listening on them). */
  async retain(keep: ReadonlySet<string>): Promise<void> {
    const stale = [...this.present].filter((a) => !keep.has(a));
    if (stale.length === 0) return;
    await this.ip.batch(stale.map((a) => `addr del ${a}/32 dev ${INTERFACE}`), this.netns);
    for (const a of stale) this.present.delete(a);
  }
}
