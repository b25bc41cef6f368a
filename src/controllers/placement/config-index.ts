import { isDeepStrictEqual } from 'node:util';
import { PLATFORM_TENANT } from '../../auth/principal.js';
import type { Logger } from '../../observability/logger.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { CacheListener } from '../../store/prefix-cache.js';
import type { KeyValue, WatchEvent } from '../../store/types.js';
import {
  configId,
  parseConfigKey,
  parseConfigRecord,
  type ConfigName,
  type ConfigRecord,
  type FlavorRecord,
  type SiteRecord,
  type VirtualK8sRecord,
  type VirtualSiteRecord,
} from './config-records.js';
import type { PlacementCatalog } from './placement-rules.js';
import { virtualSiteSelects } from './site-visibility.js';

/** What changed in the index (only real changes: a status-only write to a site is none). */
export type ConfigIndexChange =
  /** A site appeared, changed (labels, type, disabled) or left; `virtualSites`: ids of those it was or is a member of. */
  | { readonly kind: 'site'; readonly name: string; readonly tenant: string; readonly virtualSites: readonly string[] }
  | { readonly kind: 'virtual_site'; readonly id: string; readonly tenant: string }
  | { readonly kind: 'virtual_k8s'; readonly cluster: ClusterRef }
  | { readonly kind: 'workload_flavor'; readonly tenant: string }
  /** Everything may have changed (the cache relisted). */
  | { readonly kind: 'relisted' };

/** A virtual site and the sites it selects (all tenants' for the platform's customer-edge ones). */
export interface VirtualSiteMembers {
  readonly record: VirtualSiteRecord;
  readonly members: ReadonlySet<string>;
  /** The member sites sorted by name (computed once after each change to a member). */
  readonly sorted: readonly SiteRecord[];
}

class VirtualSiteEntry implements VirtualSiteMembers {
  readonly members = new Set<string>();
  private sortedCache: readonly SiteRecord[] | undefined;

  constructor(
    readonly record: VirtualSiteRecord,
    private readonly siteNamed: (name: string) => SiteRecord | undefined,
  ) {}

  get sorted(): readonly SiteRecord[] {
    if (this.sortedCache === undefined) {
      const sites: SiteRecord[] = [];
      for (const name of [...this.members].sort()) {
        const site = this.siteNamed(name);
        if (site !== undefined) sites.push(site);
      }
      this.sortedCache = Object.freeze(sites);
    }
    return this.sortedCache;
  }

  /** Makes `name` a member or not (its record may have changed either way); whether it was one. */
  set(name: string, member: boolean): boolean {
    const was = this.members.has(name);
    if (member) this.members.add(name);
    else this.members.delete(name);
    if (was || member) this.sortedCache = undefined;
    return was;
  }

  recompute(sites: Iterable<SiteRecord>): void {
    this.members.clear();
    this.sortedCache = undefined;
    for (const site of sites) if (virtualSiteSelects(this.record, site)) this.members.add(site.name);
  }
}

/**
 * Placement's mirror of the config objects it reads: sites (of every tenant, `svc-io`'s
 * regional edges included), virtual sites with the set of sites each selects, virtual_k8s
 * objects and workload flavors. It is a {@link CacheListener}: give it to the
 * `PrefixCache(store, '/config/', …)` that mirrors the config keys. Virtual site members are
 * precomputed and kept up to date incrementally: a site change costs one selector match per
 * virtual site, a virtual site change one match per site.
 */
export class PlacementConfigIndex implements CacheListener, PlacementCatalog {
  private readonly sites = new Map<string, SiteRecord>();
  private readonly vsites = new Map<string, VirtualSiteEntry>();
  private readonly clusters = new Map<string, VirtualK8sRecord>();
  private readonly flavors = new Map<string, FlavorRecord>();
  private readonly listeners: Array<(change: ConfigIndexChange) => void> = [];
  private version = 0;
  private readonly siteLookup = (name: string): SiteRecord | undefined => this.sites.get(name);

  constructor(private readonly logger?: Logger) {}

  /** Tells `listener` every change from now on. */
  onChange(listener: (change: ConfigIndexChange) => void): void {
    this.listeners.push(listener);
  }

  /** Grows on every change: memoised results computed at an older generation are stale. */
  get generation(): number {
    return this.version;
  }

  relisted(items: readonly KeyValue[]): void {
    this.sites.clear();
    this.vsites.clear();
    this.clusters.clear();
    this.flavors.clear();
    for (const kv of items) {
      const parsed = parseConfigRecord(kv.key, kv.value);
      if (parsed === undefined) continue;
      if (parsed.kind === 'site') this.sites.set(parsed.record.name, parsed.record);
      else if (parsed.kind === 'virtual_site') this.vsites.set(configId(parsed.record), new VirtualSiteEntry(parsed.record, this.siteLookup));
      else if (parsed.kind === 'virtual_k8s') this.clusters.set(configId(parsed.record), parsed.record);
      else this.flavors.set(configId(parsed.record), parsed.record);
    }
    for (const entry of this.vsites.values()) entry.recompute(this.sites.values());
    this.tell({ kind: 'relisted' });
  }

  changed(event: WatchEvent): void {
    try {
      if (event.type === 'DELETED') {
        const where = parseConfigKey(event.key);
        if (where !== undefined) this.remove(where.kind, where.name);
        return;
      }
      const parsed = parseConfigRecord(event.kv.key, event.kv.value);
      if (parsed !== undefined) this.put(parsed);
    } catch (error) {
      this.logger?.error({ err: error, key: event.key }, 'placement index could not apply a config change');
    }
  }

  private put(parsed: ConfigRecord): void {
    const id = configId(parsed.record);
    switch (parsed.kind) {
      case 'site':
        return this.putSite(parsed.record);
      case 'virtual_site': {
        if (isDeepStrictEqual(this.vsites.get(id)?.record, parsed.record)) return;
        const entry = new VirtualSiteEntry(parsed.record, this.siteLookup);
        entry.recompute(this.sites.values());
        this.vsites.set(id, entry);
        return this.tell({ kind: 'virtual_site', id, tenant: parsed.record.tenant });
      }
      case 'virtual_k8s':
        if (isDeepStrictEqual(this.clusters.get(id), parsed.record)) return;
        this.clusters.set(id, parsed.record);
        return this.tell({ kind: 'virtual_k8s', cluster: clusterOf(parsed.record) });
      case 'workload_flavor':
        if (isDeepStrictEqual(this.flavors.get(id), parsed.record)) return;
        this.flavors.set(id, parsed.record);
        return this.tell({ kind: 'workload_flavor', tenant: parsed.record.tenant });
    }
  }

  private remove(kind: ConfigRecord['kind'], name: ConfigName): void {
    const id = configId(name);
    switch (kind) {
      case 'site': {
        const site = this.sites.get(name.name);
        if (site === undefined || configId(site) !== id) return;
        this.sites.delete(name.name);
        const touched = this.updateMembership(site.name, undefined);
        return this.tell({ kind: 'site', name: site.name, tenant: site.tenant, virtualSites: touched });
      }
      case 'virtual_site':
        if (!this.vsites.delete(id)) return;
        return this.tell({ kind: 'virtual_site', id, tenant: name.tenant });
      case 'virtual_k8s':
        if (!this.clusters.delete(id)) return;
        return this.tell({ kind: 'virtual_k8s', cluster: clusterOf(name) });
      case 'workload_flavor':
        if (!this.flavors.delete(id)) return;
        return this.tell({ kind: 'workload_flavor', tenant: name.tenant });
    }
  }

  private putSite(site: SiteRecord): void {
    const old = this.sites.get(site.name);
    if (isDeepStrictEqual(old, site)) return;
    this.sites.set(site.name, site);
    const touched = this.updateMembership(site.name, site);
    this.tell({ kind: 'site', name: site.name, tenant: site.tenant, virtualSites: touched });
  }

  /** Re-decides one site's membership of every virtual site; the ids it was or is a member of. */
  private updateMembership(name: string, site: SiteRecord | undefined): string[] {
    const touched: string[] = [];
    for (const [id, entry] of this.vsites) {
      const is = site !== undefined && virtualSiteSelects(entry.record, site);
      if (entry.set(name, is) || is) touched.push(id);
    }
    return touched;
  }

  private tell(change: ConfigIndexChange): void {
    this.version++;
    for (const listener of this.listeners) {
      try {
        listener(change);
      } catch (error) {
        this.logger?.error({ err: error }, 'placement index listener failed');
      }
    }
  }

  siteNamed(name: string): SiteRecord | undefined {
    return this.sites.get(name);
  }

  virtualSite(id: string): VirtualSiteMembers | undefined {
    return this.vsites.get(id);
  }

  /** Ids of the virtual sites a site is a member of now. */
  virtualSitesOf(siteName: string): string[] {
    return [...this.vsites].filter(([, entry]) => entry.members.has(siteName)).map(([id]) => id);
  }

  virtualK8s(cluster: ClusterRef): VirtualK8sRecord | undefined {
    return this.clusters.get(`${cluster.tenant}/${cluster.namespace}/${cluster.name}`);
  }

  /** Every cluster (virtual_k8s object) of `tenant`, of every tenant when unset or the platform's. */
  clustersOf(tenant?: string): ClusterRef[] {
    return [...this.clusters.values()].filter((c) => tenant === undefined || tenant === PLATFORM_TENANT || c.tenant === tenant).map(clusterOf);
  }

  /** A workload_flavor object. */
  flavorObject(tenant: string, namespace: string, name: string): FlavorRecord | undefined {
    return this.flavors.get(`${tenant}/${namespace}/${name}`);
  }

  /** Names of the workload_flavor objects a tenant may name: its `shared` ones and the platform's `svc-io-shared` ones. */
  flavorNames(tenant: string): string[] {
    const names = new Set<string>();
    for (const f of this.flavors.values()) {
      if ((f.tenant === tenant && f.namespace === 'shared') || (f.tenant === PLATFORM_TENANT && f.namespace === 'svc-io-shared')) names.add(f.name);
    }
    return [...names].sort();
  }

  /** How many sites the index holds (tests, metrics). */
  get siteCount(): number {
    return this.sites.size;
  }
}

function clusterOf(name: ConfigName): ClusterRef {
  return { tenant: name.tenant, namespace: name.namespace, name: name.name };
}
