import type { StoredObject } from '../config/envelope.js';
import type { Logger } from '../observability/logger.js';
import type { ObjectCodec } from '../registry/object-codec.js';
import { PrefixCache } from '../store/prefix-cache.js';
import type { KeyValue, Store, WatchEvent } from '../store/types.js';
import type { WatchCache } from '../store/watch-cache.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { SiteRuntime } from '../site-api/site-model.js';
import { stateOfStatus, type SiteObjectRef } from './site-config-objects.js';
import type { SiteInventory, SiteState } from '../controllers/placement/site-inventory.js';
import { CLAIMS_PREFIX, LEASES_PREFIX, nameUnder, NODES_PREFIX, siteOfNodeKey, type SiteClaim, type SiteLeaseValue } from './site-keys.js';

const CONFIG_PREFIX = '/config/';

/** `/config/<tenant>/site/<namespace>/<name>` → its parts; undefined for other keys. */
function siteObjectKey(key: string): SiteObjectRef | undefined {
  const parts = key.split('/');
  if (parts.length !== 6 || parts[1] !== 'config' || parts[3] !== 'site') return undefined;
  return { tenant: parts[2] ?? '', namespace: parts[4] ?? '', name: parts[5] ?? '' };
}

/**
 * The {@link SiteInventory} over in-memory mirrors: the site claims (`/sites/sites/`: owner,
 * type, quota), the lease keys (`/sites/leases/`: who heartbeats), the site config objects
 * (their state; a mirror of `/config/` keeping only sites) and the Node objects (the node
 * watch cache the vK8s node views use too). Every change is announced with its site name.
 */
export class CachedSiteInventory implements SiteInventory {
  private readonly claims: PrefixCache;
  private readonly leases: PrefixCache;
  private readonly configs: PrefixCache;
  private readonly states = new Map<string, { readonly ref: SiteObjectRef; readonly state: SiteState | undefined }>();
  private readonly nodes = new Map<string, Map<string, KubeObject>>();
  /** Sites whose config object this process saw deleted (and not recreated) since it started. */
  private readonly deletedObjects = new Set<string>();
  private readonly claimMemo = new WeakMap<KeyValue, SiteClaim>();
  private readonly handlers: Array<(site: string) => void> = [];
  private readonly controller = new AbortController();

  constructor(
    store: Store,
    private readonly nodeCache: WatchCache,
    private readonly codec: ObjectCodec,
    private readonly logger?: Logger,
  ) {
    const announce = (prefix: string) => ({
      relisted: (items: readonly KeyValue[]) => this.announceAll(items.map((kv) => nameUnder(prefix, kv.key))),
      changed: (event: WatchEvent) => this.announceAll([nameUnder(prefix, event.key)]),
    });
    this.claims = new PrefixCache(store, CLAIMS_PREFIX, logger, announce(CLAIMS_PREFIX));
    this.leases = new PrefixCache(store, LEASES_PREFIX, logger, announce(LEASES_PREFIX));
    // Only site objects are kept from the config mirror.
    this.configs = new PrefixCache(store, CONFIG_PREFIX, logger, {
      relisted: (items) => {
        const before = [...this.states.keys()];
        this.states.clear();
        for (const kv of items) this.putConfig(kv);
        this.announceAll([...before, ...this.states.keys()]);
      },
      changed: (event) => {
        const ref = siteObjectKey(event.key);
        if (ref === undefined) return;
        if (event.type === 'DELETED') {
          this.states.delete(ref.name);
          this.deletedObjects.add(ref.name);
        } else this.putConfig(event.kv);
        this.announceAll([ref.name]);
      },
    });
  }

  /** Fills every mirror (the node watch cache must have started); resolves when all have listed. */
  async start(): Promise<void> {
    await Promise.all([this.claims.start(), this.leases.start(), this.configs.start()]);
    void this.followNodes(this.loadNodes());
  }

  stop(): void {
    this.controller.abort();
    for (const cache of [this.claims, this.leases, this.configs]) cache.stop();
  }

  onChange(handler: (site: string) => void): void {
    this.handlers.push(handler);
  }

  nodesOf(site: string): readonly KubeObject[] {
    return [...(this.nodes.get(site)?.values() ?? [])];
  }

  stateOf(site: string): SiteState | undefined {
    return this.states.get(site)?.state;
  }

  quotaOf(site: string): { readonly cpuMillis: number; readonly memoryBytes: number } | undefined {
    return this.claimOf(site)?.quota;
  }

  runtimeOf(site: string): SiteRuntime | undefined {
    const claim = this.claimOf(site);
    return claim === undefined ? undefined : (claim.runtime ?? 'simulated');
  }

  /** Where the site's config object is, when it exists. */
  objectOf(site: string): SiteObjectRef | undefined {
    return this.states.get(site)?.ref;
  }

  /**
   * Whether the site's config object was deleted while this process watched (and has not
   * come back): the site is to be decommissioned. A site being registered has a claim but no
   * object yet, which is why the deletion itself is what counts.
   */
  objectDeleted(site: string): boolean {
    return this.deletedObjects.has(site) && !this.states.has(site);
  }

  /** The site was decommissioned: its deletion is handled. */
  forgetDeletion(site: string): void {
    this.deletedObjects.delete(site);
  }

  /** The site's claim: owner tenant, type, agent, quota. */
  claimOf(site: string): SiteClaim | undefined {
    const found = this.claims.lookup(CLAIMS_PREFIX + site);
    if (found.state !== 'present') return undefined;
    let claim = this.claimMemo.get(found.kv);
    if (claim === undefined) {
      claim = JSON.parse(found.kv.value) as SiteClaim;
      this.claimMemo.set(found.kv, claim);
    }
    return claim;
  }

  /** The site's lease key (present while its agent heartbeats). */
  leaseOf(site: string): { readonly lease: string | undefined; readonly agent: string } | undefined {
    const found = this.leases.lookup(LEASES_PREFIX + site);
    if (found.state !== 'present') return undefined;
    return { lease: found.kv.lease, agent: (JSON.parse(found.kv.value) as SiteLeaseValue).agent };
  }

  /** Every claimed site. */
  sites(): string[] {
    return this.claims.items().flatMap((kv) => nameUnder(CLAIMS_PREFIX, kv.key) ?? []);
  }

  /** Applies writes this process made, before their watch events arrive. */
  observe(kind: 'claim' | 'lease', write: { readonly kv: KeyValue } | { readonly deleted: string; readonly revision: number }): void {
    (kind === 'claim' ? this.claims : this.leases).observe(write);
  }

  private putConfig(kv: KeyValue): void {
    const ref = siteObjectKey(kv.key);
    if (ref === undefined) return;
    const object = JSON.parse(kv.value) as StoredObject;
    this.states.set(ref.name, { ref, state: stateOfStatus(object.status) });
  }

  private announceAll(sites: ReadonlyArray<string | undefined>): void {
    for (const site of new Set(sites)) {
      if (site === undefined) continue;
      for (const handler of this.handlers) handler(site);
    }
  }

  private loadNodes(): number {
    const { items, revision } = this.nodeCache.list();
    const before = [...this.nodes.keys()];
    this.nodes.clear();
    for (const kv of items) this.putNode(kv);
    this.announceAll([...before, ...this.nodes.keys()]);
    return revision;
  }

  private putNode(kv: KeyValue): void {
    const site = siteOfNodeKey(kv.key);
    if (site === undefined) return;
    let nodes = this.nodes.get(site);
    if (nodes === undefined) this.nodes.set(site, (nodes = new Map<string, KubeObject>()));
    nodes.set(kv.key, this.codec.decode(kv));
  }

  private async followNodes(revision: number): Promise<void> {
    const { signal } = this.controller;
    let from = revision;
    while (!signal.aborted) {
      try {
        for await (const event of this.nodeCache.watch(NODES_PREFIX, { fromRevision: from, signal })) {
          const site = siteOfNodeKey(event.key);
          if (site === undefined) continue;
          if (event.type === 'DELETED') this.nodes.get(site)?.delete(event.key);
          else this.putNode(event.kv);
          if (this.nodes.get(site)?.size === 0) this.nodes.delete(site);
          this.announceAll([site]);
        }
        return;
      } catch (error) {
        if (signal.aborted) return;
        this.logger?.info({ err: error instanceof Error ? error.message : String(error) }, 'site inventory: node watch ended; reloading');
        await new Promise((resolve) => setTimeout(resolve, 50).unref());
        from = this.loadNodes();
      }
    }
  }
}
