import { mkdir, open, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatAddress, type Ipv4Cidr, nextFreeAddress } from './ipv4-cidr.js';

const LAST_RESERVED = 'last_reserved_ip';

/** The pod CIDR has no free address left. */
export class AddressesExhaustedError extends Error {}

/**
 * A site's pod addresses leased on disk as CNI's host-local IPAM does: one file per leased
 * address, named by it and holding the pod's uid, created exclusively (so two allocations
 * never share an address, even across agent restarts), and the last address handed out, so
 * allocation goes round robin and a freed address is not reused at once.
 */
export class AddressLeases {
  constructor(
    private readonly dir: string,
    readonly cidr: Ipv4Cidr,
  ) {}

  /** The pod's address: the one it already holds, or the next free one. */
  async lease(podUid: string): Promise<number> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const held = await this.leases();
    for (const [address, uid] of held) if (uid === podUid) return address;
    const previous = await readFile(join(this.dir, LAST_RESERVED), 'utf8').then(
      (text) => this.parse(text.trim()),
      () => undefined,
    );
    const taken = new Set(held.keys());
    for (;;) {
      const address = nextFreeAddress(this.cidr, taken, previous);
      if (address === undefined) throw new AddressesExhaustedError(`no free address left in the site's pod network (${taken.size} leased)`);
      try {
        const file = await open(join(this.dir, formatAddress(address)), 'wx', 0o600);
        await file.writeFile(podUid);
        await file.close();
        await writeFile(join(this.dir, LAST_RESERVED), formatAddress(address), { mode: 0o600 });
        return address;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        taken.add(address);
      }
    }
  }

  /** Frees the pod's address (nothing to do when it holds none). */
  async release(podUid: string): Promise<void> {
    for (const [address, uid] of await this.leases()) if (uid === podUid) await rm(join(this.dir, formatAddress(address)), { force: true });
  }

  /** Every lease: address → pod uid. */
  async leases(): Promise<Map<number, string>> {
    const result = new Map<number, string>();
    const names = await readdir(this.dir).catch(() => [] as string[]);
    for (const name of names) {
      const address = this.parse(name);
      if (address === undefined) continue;
      const uid = await readFile(join(this.dir, name), 'utf8').catch(() => undefined);
      if (uid !== undefined) result.set(address, uid.trim());
    }
    return result;
  }

  private parse(text: string): number | undefined {
    const parts = text.split('.');
    if (parts.length !== 4 || parts.some((p) => !/^\d{1,3}$/.test(p))) return undefined;
    const value = parts.reduce((sum, p) => sum * 256 + Number(p), 0);
    return formatAddress(value) === text ? value : undefined;
  }
}
