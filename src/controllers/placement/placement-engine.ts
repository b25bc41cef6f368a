import type { EventRecorder } from '../events/event-recorder.js';
import { clusterKeyOf } from '../runtime/object-key.js';
import type { Logger } from '../../observability/logger.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { SITES_ANNOTATION, VIRTUAL_SITES_ANNOTATION } from '../../site-api/site-model.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { SiteRecord } from './config-records.js';
import type { ConfigIndexChange, PlacementConfigIndex } from './config-index.js';
import type { PlacedSite } from './placed-site.js';
import { decidePlacement } from './placement-rules.js';
import type { PlacementView, ResourceKind, WorkloadPlacement } from './placement-view.js';
import { siteVisibleTo } from './site-visibility.js';
import { ProblemReporter } from './problem-reporter.js';
import { siteWorkRule, type SiteState } from './site-work-rule.js';

/** Where site states come from (the site inventory); `onChange` tells a site whose state changed. */
interface SiteStateSource {
  stateOf(site: string): SiteState | undefined;
  onChange(handler: (site: string) => void): void;
}

export interface PlacementEngineOptions {
  /** Fed by the control plane's `/config/` PrefixCache (it is that cache's listener). */
  readonly index: PlacementConfigIndex;
  /** Without it every site counts as having no state yet (accepts new work). */
  readonly siteStates?: SiteStateSource;
  /** Where placement problems go, as Warning events `FailedPlacement`. */
  readonly recorder?: EventRecorder;
  readonly logger?: Logger;
  /** Runs the notification flush later; default `setImmediate` (a burst of changes notifies each cluster once). Tests pass `(f) => f()`. */
  readonly defer?: (flush: () => void) => void;
  /** Objects remembered for once-only problem events (default 10,000). */
  readonly reportedObjects?: number;
}

/** Event reason for placement problems (no kube equivalent; named like kube's Failed* reasons). */
const FAILED_PLACEMENT_REASON = 'FailedPlacement';
/** Event reason for a workload whose placement resolves to no site, so it stays where it runs. */
const PLACEMENT_UNRESOLVED_REASON = 'PlacementUnresolved';
export const PLACEMENT_COMPONENT = 'placement';

/** Kinds whose objects make pods: placing one on no site at all is reported. */
const POD_MAKERS = new Set(['apps/deployments', 'apps/replicasets', 'apps/statefulsets', 'apps/daemonsets', 'batch/jobs', 'batch/cronjobs', '/pods']);

interface MemoEntry {
  readonly clusterKey: string;
  readonly specKey: string;
  readonly sites: readonly PlacedSite[];
  readonly problems: readonly string[];
  readonly dependencies: readonly string[];
  /** Set when the references resolve to no site at all (before the site-state rule): what they are. */
  readonly unresolved?: string;
}

const NONE = '\u0001';

/**
 * The {@link PlacementView}: decides with the pure rules of `placement-rules.ts` over the
 * config index, applies the site-state rule (`siteWorkRule`), and memoises the result per
 * cluster and placement annotation values, so every object of a Deployment-like workload
 * costs a map lookup. Each memo entry records what it depends on (sites named, virtual
 * sites named, the virtual_k8s object); a change to one drops the entries that depend on
 * it and notifies their clusters. Placement problems become Warning events on the object
 * asking, once per object generation and message.
 */
export class PlacementEngine implements PlacementView {
  private readonly memo = new Map<string, Map<string, MemoEntry>>();
  private readonly dependents = new Map<string, Set<MemoEntry>>();
  private readonly placed = new WeakMap<SiteRecord, { readonly accepts: PlacedSite; readonly keeps: PlacedSite }>();
  private readonly handlers: Array<(cluster: ClusterRef) => void> = [];
  private readonly pending = new Map<string, ClusterRef>();
  private flushScheduled = false;
  private readonly reporter: ProblemReporter;

  constructor(private readonly options: PlacementEngineOptions) {
    this.reporter = new ProblemReporter(options.reportedObjects ?? 10_000);
    options.index.onChange((change) => this.indexChanged(change));
    options.siteStates?.onChange((site) => this.notify(this.invalidate([`site:${site}`, ...options.index.virtualSitesOf(site).map((id) => `vsite:${id}`)])));
  }

  onClusterChange(handler: (cluster: ClusterRef) => void): void {
    this.handlers.push(handler);
  }

  sitesFor(resource: ResourceKind, cluster: ClusterRef, object: KubeObject): readonly PlacedSite[] {
    return this.entryFor(resource, cluster, object).sites;
  }

  /**
   * A workload whose references resolve to no site keeps the sites it runs on (those that
   * still exist, are visible to its tenant and allow work), so that a typo in a well-formed
   * annotation, or a virtual site that selects nothing for a while, never deletes running
   * pods; it moves once the references resolve again.
   */
  placementOf(resource: ResourceKind, cluster: ClusterRef, object: KubeObject, running: Iterable<string>): WorkloadPlacement {
    const entry = this.entryFor(resource, cluster, object);
    if (entry.unresolved === undefined) return { sites: entry.sites };
    const message = `${entry.unresolved} resolves to no site: the workload stays on the sites it runs on until its placement resolves`;
    this.report(cluster, object, [message], PLACEMENT_UNRESOLVED_REASON);
    const sites: PlacedSite[] = [];
    for (const name of [...new Set(running)].sort()) {
      const site = this.options.index.siteNamed(name);
      if (site === undefined || site.disabled || !siteVisibleTo(site, cluster.tenant)) continue;
      const work = siteWorkRule(this.options.siteStates?.stateOf(site.name));
      if (work !== 'no-work') sites.push(work === 'new-work' ? this.placedOf(site).accepts : this.placedOf(site).keeps);
    }
    return { sites, unresolved: message };
  }

  private entryFor(resource: ResourceKind, cluster: ClusterRef, object: KubeObject): MemoEntry {
    const annotations = object.metadata.annotations;
    const requirePlacement = POD_MAKERS.has(`${resource.group}/${resource.resource}`);
    const specKey = `${annotations?.[SITES_ANNOTATION] ?? NONE}\u0000${annotations?.[VIRTUAL_SITES_ANNOTATION] ?? NONE}\u0000${requirePlacement}`;
    const clusterKey = clusterKeyOf(cluster);
    const entry = this.memo.get(clusterKey)?.get(specKey) ?? this.compute(cluster, clusterKey, specKey, annotations, requirePlacement);
    if (entry.problems.length > 0) this.report(cluster, object, entry.problems);
    return entry;
  }

  private compute(cluster: ClusterRef, clusterKey: string, specKey: string, annotations: Record<string, string> | undefined, requirePlacement: boolean): MemoEntry {
    const { index } = this.options;
    const decision = decidePlacement({ cluster, annotations, vk8s: index.virtualK8s(cluster), requirePlacement }, index);
    const sites: PlacedSite[] = [];
    for (const site of decision.sites) {
      const work = siteWorkRule(this.options.siteStates?.stateOf(site.name));
      if (work !== 'no-work') sites.push(work === 'new-work' ? this.placedOf(site).accepts : this.placedOf(site).keeps);
    }
    const dependencies = [`vk8s:${clusterKey}`, ...decision.siteDependencies.map((s) => `site:${s}`), ...decision.virtualSiteDependencies.map((v) => `vsite:${v}`)];
    const entry: MemoEntry = {
      clusterKey,
      specKey,
      sites: Object.freeze(sites),
      problems: decision.problems,
      dependencies,
      ...(decision.sites.length === 0 ? { unresolved: decision.referenced } : {}),
    };
    let entries = this.memo.get(clusterKey);
    if (entries === undefined) this.memo.set(clusterKey, (entries = new Map<string, MemoEntry>()));
    entries.set(specKey, entry);
    for (const dependency of dependencies) {
      let set = this.dependents.get(dependency);
      if (set === undefined) this.dependents.set(dependency, (set = new Set()));
      set.add(entry);
    }
    return entry;
  }

  private placedOf(site: SiteRecord): { readonly accepts: PlacedSite; readonly keeps: PlacedSite } {
    let placed = this.placed.get(site);
    if (placed === undefined) {
      const base = { name: site.name, type: site.type, labels: Object.freeze({ ...site.labels }) };
      placed = { accepts: Object.freeze(base), keeps: Object.freeze({ ...base, acceptsNewWork: false }) };
      this.placed.set(site, placed);
    }
    return placed;
  }

  private report(cluster: ClusterRef, object: KubeObject, problems: readonly string[], reason = FAILED_PLACEMENT_REASON): void {
    const recorder = this.options.recorder;
    if (recorder === undefined) return;
    for (const message of this.reporter.fresh(object, problems)) recorder.record(cluster, object, 'Warning', reason, message, PLACEMENT_COMPONENT);
  }

  private indexChanged(change: ConfigIndexChange): void {
    switch (change.kind) {
      case 'site':
        return this.notify(this.invalidate([`site:${change.name}`, ...change.virtualSites.map((id) => `vsite:${id}`)]));
      case 'virtual_site':
        return this.notify(this.invalidate([`vsite:${change.id}`]));
      case 'virtual_k8s':
        // The cluster is told even without memoised placements: its default flavor may have changed.
        return this.notify([...this.invalidate([`vk8s:${clusterKeyOf(change.cluster)}`]), change.cluster]);
      case 'workload_flavor':
        // Flavors do not move objects, but they change the pods' templates.
        return this.notify(this.options.index.clustersOf(change.tenant));
      case 'relisted':
        for (const entries of [...this.memo.values()]) for (const entry of [...entries.values()]) this.drop(entry);
        return this.notify(this.options.index.clustersOf());
    }
  }

  /** Drops the memo entries depending on any of `dependencies`; their clusters. */
  private invalidate(dependencies: readonly string[]): ClusterRef[] {
    const clusters = new Map<string, ClusterRef>();
    for (const dependency of dependencies) {
      for (const entry of [...(this.dependents.get(dependency) ?? [])]) {
        this.drop(entry);
        const [tenant = '', namespace = '', name = ''] = entry.clusterKey.split('/');
        clusters.set(entry.clusterKey, { tenant, namespace, name });
      }
    }
    return [...clusters.values()];
  }

  private drop(entry: MemoEntry): void {
    const entries = this.memo.get(entry.clusterKey);
    if (entries?.get(entry.specKey) === entry) {
      entries.delete(entry.specKey);
      if (entries.size === 0) this.memo.delete(entry.clusterKey);
    }
    for (const dependency of entry.dependencies) {
      const set = this.dependents.get(dependency);
      set?.delete(entry);
      if (set?.size === 0) this.dependents.delete(dependency);
    }
  }

  /** Tells the handlers about `clusters` (each once), at the next flush. */
  private notify(clusters: readonly ClusterRef[]): void {
    for (const cluster of clusters) this.pending.set(clusterKeyOf(cluster), cluster);
    if (this.flushScheduled || this.pending.size === 0) return;
    this.flushScheduled = true;
    (this.options.defer ?? ((flush) => void setImmediate(flush)))(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const clusters = [...this.pending.values()];
    this.pending.clear();
    for (const cluster of clusters) {
      for (const handler of this.handlers) {
        try {
          handler(cluster);
        } catch (error) {
          this.options.logger?.error({ err: error, cluster }, 'placement change handler failed');
        }
      }
    }
  }

  /** Memo entries held (tests, metrics). */
  get memoSize(): number {
    let size = 0;
    for (const entries of this.memo.values()) size += entries.size;
    return size;
  }
}
