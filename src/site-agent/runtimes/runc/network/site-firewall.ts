import { readFile } from 'node:fs/promises';
import { replaceFileAtomic } from '../../../../common/atomic-file.js';
import type { Logger } from '../../../../observability/logger.js';
import type { NftCommand } from '../../../host/index.js';
import type { ClusterDestination, FirewallPod } from './firewall-model.js';
import { siteFirewallTables } from './firewall-ruleset.js';
import type { FirewallFamily, NftTable } from './firewall-ruleset.js';
import { dropCounts, existingObjects, firewallScript, type DropCount, type TableObjects } from './firewall-script.js';

export interface SiteFirewallOptions {
  readonly nft: NftCommand;
  /** The site's network namespace, where the tables live. */
  readonly netns: string;
  readonly bridge: string;
  readonly gateway: string;
  readonly relayPort: number;
  /** Where the filter keeps what it was made from, so a restarted agent rebuilds the same one before it knows its pods again. */
  readonly stateFile: string;
  /** The bridge's ports now: a saved pod whose port is gone is forgotten at start. */
  readonly ports: () => Promise<ReadonlySet<string>>;
  readonly logger: Logger;
}

interface SavedFilter {
  readonly pods: readonly FirewallPod[];
  readonly destinations: Readonly<Record<string, readonly ClusterDestination[]>>;
}

/** A pod's drops for one reason (by its port, and the pod when the filter holds it), or the site's (no port). */
export interface PodDrops extends DropCount {
  readonly pod?: FirewallPod;
}

const dropKey = (veth: string | undefined, reason: string): string => `${veth ?? ''}\0${reason}`;
const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The names of what a table holds once it is applied. */
const objectsOf = (table: NftTable): TableObjects => ({
  chains: new Set(table.chains.map((c) => c.name)),
  sets: new Set(table.sets.map((s) => s.name)),
  counters: new Set(table.counters),
});

/**
 * A runc site's packet filter (see `firewall-ruleset.ts` for the rules): what it is made of —
 * the site's pods and what each virtual cluster may reach — kept in memory and in
 * `stateFile`, and applied to the site's namespace as one nftables transaction after each
 * change (one at a time; changes made meanwhile go into the next). The rules live in the
 * kernel: they keep protecting the pods while no agent runs, and {@link start} replaces
 * whatever an earlier agent (or anyone) left in the site's tables.
 */
export class SiteFirewall {
  private pods = new Map<string, FirewallPod>();
  private destinations: Record<string, readonly ClusterDestination[]> = {};
  private queued: Promise<void> | undefined;
  private tail: Promise<void> = Promise.resolve();
  /** What the site's tables hold since this filter's last apply; read from the kernel when unknown (at start, after a failure). */
  private applied: ReadonlyMap<FirewallFamily, TableObjects> | undefined;
  /**
   * The counts last logged, by `<veth>\0<reason>`: taken when the filter starts (what was
   * counted before this agent is not news); undefined if they could not be read then, and the
   * first {@link logDrops} only looks.
   */
  private logged: Map<string, number> | undefined;

  constructor(private readonly options: SiteFirewallOptions) {}

  /** Reads what the last agent's filter was made of and applies it: the site's tables become this agent's. */
  async start(): Promise<void> {
    const none: Partial<SavedFilter> = {};
    const saved = await readFile(this.options.stateFile, 'utf8').then(
      (text) => JSON.parse(text) as Partial<SavedFilter>,
      () => none,
    );
    const ports = await this.options.ports();
    for (const pod of saved.pods ?? []) if (ports.has(pod.veth)) this.pods.set(pod.uid, pod);
    this.destinations = { ...saved.destinations };
    await this.sync();
    this.logged = await this.drops().then(
      (drops) => new Map(drops.map(({ veth, reason, packets }) => [dropKey(veth, reason), packets])),
      () => undefined,
    );
    this.options.logger.info({ netns: this.options.netns, pods: this.pods.size }, 'site packet filter applied');
  }

  /** Whether the filter holds the pod with this address. */
  holds(uid: string, ip: string): boolean {
    return this.pods.get(uid)?.ip === ip;
  }

  /** Lets a pod's port send from its MAC and IP, to its own cluster; resolves once the kernel has it (before its containers start). */
  admit(pod: FirewallPod): Promise<void> {
    for (const [uid, other] of this.pods) if (uid === pod.uid || other.veth === pod.veth || other.ip === pod.ip) this.pods.delete(uid);
    this.pods.set(pod.uid, pod);
    return this.sync();
  }

  /** Forgets a pod (its namespace and veth are gone or going). */
  async release(uid: string): Promise<void> {
    if (this.pods.delete(uid)) await this.sync();
  }

  /** What each virtual cluster's pods may open on the site's own addresses now (its name server, its Services' frontends). */
  async setDestinations(destinations: Readonly<Record<string, readonly ClusterDestination[]>>): Promise<void> {
    if (sameJson(destinations, this.destinations)) return;
    this.destinations = { ...destinations };
    await this.sync();
  }

  /** The drop counters now, each with the pod it counts for. */
  async drops(): Promise<PodDrops[]> {
    const byVeth = new Map([...this.pods.values()].map((pod) => [pod.veth, pod]));
    return dropCounts(await this.options.nft.ruleset(this.options.netns)).map(({ veth, reason, packets }) => {
      const pod = veth === undefined ? undefined : byVeth.get(veth);
      return { reason, packets, ...(veth === undefined ? {} : { veth }), ...(pod === undefined ? {} : { pod }) };
    });
  }

  /** Logs each pod's drops that grew since the last call (or the filter's start): a warning for forged addresses, information for the rest. */
  async logDrops(site: string): Promise<void> {
    const first = this.logged === undefined;
    const logged = (this.logged ??= new Map<string, number>());
    for (const { veth, pod, reason, packets } of await this.drops()) {
      const key = dropKey(veth, reason);
      const before = logged.get(key) ?? 0;
      logged.set(key, packets);
      if (first || packets <= before) continue;
      const from = pod === undefined ? {} : { pod: pod.name, namespace: pod.namespace, cluster: pod.cluster, ip: pod.ip };
      const fields = { site, reason, packets: packets - before, total: packets, ...from };
      if (reason.endsWith('_spoofed')) this.options.logger.warn(fields, 'site network dropped packets with forged addresses');
      else this.options.logger.info(fields, 'site network dropped packets');
    }
  }

  /** Applies the filter as it is now, after the apply under way if any (changes made before it starts go in). */
  private sync(): Promise<void> {
    if (this.queued !== undefined) return this.queued;
    const run = this.tail
      .catch(() => undefined)
      .then(async () => {
        this.queued = undefined;
        await this.applyNow();
      });
    this.queued = run;
    this.tail = run;
    return run;
  }

  private async applyNow(): Promise<void> {
    const { nft, netns, bridge, gateway, relayPort, stateFile } = this.options;
    const saved: SavedFilter = { pods: [...this.pods.values()], destinations: this.destinations };
    await replaceFileAtomic(stateFile, JSON.stringify(saved), 0o600);
    const tables = siteFirewallTables({ bridge, gateway, relayPort, ...saved });
    const existing = this.applied ?? existingObjects(await nft.ruleset(netns));
    this.applied = undefined;
    await nft.apply(netns, firewallScript(tables, existing));
    this.applied = new Map(tables.map((table) => [table.family, objectsOf(table)]));
  }
}
