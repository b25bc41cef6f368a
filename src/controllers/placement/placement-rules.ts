import { PLATFORM_TENANT } from '../../auth/principal.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { SITES_ANNOTATION, VIRTUAL_SITES_ANNOTATION, type SiteType } from '../../site-api/site-model.js';
import { configId, type SiteRecord, type VirtualK8sRecord, type VirtualSiteRecord } from './config-records.js';
import { parseRefList, type NamespacedName } from './placement-annotations.js';
import { siteVisibleTo } from './site-visibility.js';

/** What the rules read: sites by name (unique platform-wide) and virtual sites with their members. */
export interface PlacementCatalog {
  siteNamed(name: string): SiteRecord | undefined;
  /** A virtual site by id (`tenant/namespace/name`) and the names of the sites it selects now, sorted. */
  virtualSite(id: string): { readonly record: VirtualSiteRecord; readonly sorted: readonly SiteRecord[] } | undefined;
}

export interface PlacementRequest {
  readonly cluster: ClusterRef;
  readonly annotations: Readonly<Record<string, string>> | undefined;
  /** The cluster's virtual_k8s object (its vsite_refs are the default placement). */
  readonly vk8s: VirtualK8sRecord | undefined;
  /** Report an object placed by default on no site at all (for kinds that run pods). */
  readonly requirePlacement?: boolean;
}

/** Which rule decided: the `svc.io/sites` annotation, `svc.io/virtual-sites`, or the vK8s default. */
export type PlacementSource = 'sites' | 'virtual-sites' | 'default';

export interface PlacementDecision {
  readonly source: PlacementSource;
  /** Visible, distinct, sorted by name. */
  readonly sites: readonly SiteRecord[];
  /** What is wrong, one sentence each, naming the annotation or field. */
  readonly problems: readonly string[];
  /** Site names referred to directly (present or not): a change to one changes the decision. */
  readonly siteDependencies: readonly string[];
  /** Virtual site ids referred to (present or not). */
  readonly virtualSiteDependencies: readonly string[];
  /** What decided, for messages: `annotation svc.io/sites (system/a, system/b)`, `virtual_k8s vk1 spec.vsite_refs (shared/eu)`. */
  readonly referenced: string;
}

const KIND_NAME: Readonly<Record<SiteType, string>> = { REGIONAL_EDGE: 'regional-edge', CUSTOMER_EDGE: 'customer-edge' };
const SITE_NAMESPACE: Readonly<Record<string, { readonly tenant: (cluster: ClusterRef) => string; readonly type: SiteType }>> = {
  system: { tenant: (cluster) => cluster.tenant, type: 'CUSTOMER_EDGE' },
  'svc-io-system': { tenant: () => PLATFORM_TENANT, type: 'REGIONAL_EDGE' },
};

/**
 * The seed's placement rules, pure: `svc.io/sites` (sites: `system/<name>` for the tenant's
 * customer-edge sites, `svc-io-system/<name>` for regional edge) has priority over
 * `svc.io/virtual-sites` (virtual sites in the cluster's namespace, `shared`, or the
 * platform's `svc-io-shared`), which overrides the virtual_k8s object's `vsite_refs`. A
 * virtual site contributes the sites it selects that the cluster's tenant may use.
 *
 * An annotation that is present decides, even when some of its entries are wrong: the
 * entries that resolve are used and each wrong one is reported (an annotation written to
 * restrict placement never falls back to the broader default). Problems are returned,
 * never thrown.
 */
export function decidePlacement(request: PlacementRequest, catalog: PlacementCatalog): PlacementDecision {
  const builder = new DecisionBuilder(request.cluster, catalog);
  const annotations = request.annotations ?? {};
  const sitesValue = annotations[SITES_ANNOTATION];
  const vsitesValue = annotations[VIRTUAL_SITES_ANNOTATION];
  if (sitesValue !== undefined) {
    const { refs, problems } = parseRefList(SITES_ANNOTATION, sitesValue);
    builder.problems.push(...problems);
    for (const ref of refs) builder.addSiteRef(ref);
    return builder.build('sites', `annotation ${SITES_ANNOTATION} (${labels(refs)})`);
  }
  if (vsitesValue !== undefined) {
    const { refs, problems } = parseRefList(VIRTUAL_SITES_ANNOTATION, vsitesValue);
    builder.problems.push(...problems);
    for (const ref of refs) builder.addAnnotatedVirtualSite(ref);
    return builder.build('virtual-sites', `annotation ${VIRTUAL_SITES_ANNOTATION} (${labels(refs)})`);
  }
  const vk8s = request.vk8s;
  if (vk8s === undefined) return builder.build('default', 'no placement annotation and no virtual_k8s object');
  vk8s.vsiteRefs.forEach((ref, i) => {
    const where = `virtual_k8s ${vk8s.name}: spec.vsite_refs[${i}]`;
    if (ref.tenant !== request.cluster.tenant && ref.tenant !== PLATFORM_TENANT) builder.problems.push(`${where}: virtual site ${ref.namespace}/${ref.name} is out of reach`);
    else builder.addVirtualSite(configId(ref), `${ref.namespace}/${ref.name}`, where);
  });
  if (vk8s.vsiteRefs.length === 0 && request.requirePlacement === true) {
    builder.problems.push(`no placement: the object has no ${SITES_ANNOTATION} or ${VIRTUAL_SITES_ANNOTATION} annotation and virtual_k8s ${vk8s.name} has no vsite_refs`);
  }
  return builder.build('default', vk8s.vsiteRefs.length === 0 ? `virtual_k8s ${vk8s.name} without vsite_refs` : `virtual_k8s ${vk8s.name} spec.vsite_refs (${labels(vk8s.vsiteRefs)})`);
}

const labels = (refs: readonly NamespacedName[]): string => refs.map((r) => `${r.namespace}/${r.name}`).join(', ');

class DecisionBuilder {
  readonly problems: string[] = [];
  /** Sites named directly, and the (sorted) contributions of virtual sites. */
  private readonly direct = new Map<string, SiteRecord>();
  private readonly contributions: Array<readonly SiteRecord[]> = [];
  private readonly siteDependencies = new Set<string>();
  private readonly virtualSiteDependencies = new Set<string>();

  constructor(
    private readonly cluster: ClusterRef,
    private readonly catalog: PlacementCatalog,
  ) {}

  private visibleSite(name: string): SiteRecord | undefined {
    const site = this.catalog.siteNamed(name);
    return site !== undefined && siteVisibleTo(site, this.cluster.tenant) ? site : undefined;
  }

  addSiteRef(ref: NamespacedName): void {
    const where = `annotation ${SITES_ANNOTATION}`;
    const label = `${ref.namespace}/${ref.name}`;
    const expected = SITE_NAMESPACE[ref.namespace];
    if (expected === undefined) {
      this.problems.push(`${where}: namespace ${JSON.stringify(ref.namespace)} holds no sites: customer-edge sites are in "system", regional-edge sites in "svc-io-system"`);
      return;
    }
    this.siteDependencies.add(ref.name);
    const site = this.visibleSite(ref.name);
    if (site === undefined) {
      this.problems.push(`${where}: site ${label} does not exist`);
    } else if (site.tenant !== expected.tenant(this.cluster) || site.namespace !== ref.namespace) {
      this.problems.push(`${where}: site ${label} does not exist; ${ref.name} is a ${KIND_NAME[site.type]} site: ${site.namespace}/${ref.name}`);
    } else if (site.type !== expected.type) {
      this.problems.push(`${where}: site ${label} is a ${KIND_NAME[site.type]} site; namespace ${ref.namespace} holds ${KIND_NAME[expected.type]} sites`);
    } else if (site.disabled) {
      this.problems.push(`${where}: site ${label} is disabled`);
    } else {
      this.direct.set(site.name, site);
    }
  }

  addAnnotatedVirtualSite(ref: NamespacedName): void {
    const where = `annotation ${VIRTUAL_SITES_ANNOTATION}`;
    const label = `${ref.namespace}/${ref.name}`;
    const tenant = ref.namespace === 'svc-io-shared' ? PLATFORM_TENANT : ref.namespace === this.cluster.namespace || ref.namespace === 'shared' ? this.cluster.tenant : undefined;
    if (tenant === undefined) {
      this.problems.push(
        `${where}: virtual site ${label} is out of reach: refer to virtual sites in namespace ${this.cluster.namespace}, shared or svc-io-shared${this.siteHint(ref)}`,
      );
      return;
    }
    this.addVirtualSite(`${tenant}/${ref.namespace}/${ref.name}`, label, where, this.siteHint(ref));
  }

  /** A hint when a virtual-site entry names a site. */
  private siteHint(ref: NamespacedName): string {
    const site = SITE_NAMESPACE[ref.namespace] === undefined ? undefined : this.visibleSite(ref.name);
    return site === undefined || site.namespace !== ref.namespace ? '' : `; ${ref.namespace}/${ref.name} is a site: list it in ${SITES_ANNOTATION}`;
  }

  addVirtualSite(id: string, label: string, where: string, hint = ''): void {
    this.virtualSiteDependencies.add(id);
    const found = this.catalog.virtualSite(id);
    if (found === undefined) {
      this.problems.push(`${where}: virtual site ${label} does not exist${hint}`);
      return;
    }
    if (found.record.disabled) {
      this.problems.push(`${where}: virtual site ${label} is disabled`);
      return;
    }
    for (const problem of found.record.problems) this.problems.push(`${where}: virtual site ${label}: ${problem}`);
    // The platform's customer-edge virtual sites select every tenant's sites: each sees its own.
    const shared = found.record.tenant === PLATFORM_TENANT && found.record.siteType === 'CUSTOMER_EDGE';
    this.contributions.push(shared ? found.sorted.filter((site) => siteVisibleTo(site, this.cluster.tenant)) : found.sorted);
  }

  build(source: PlacementSource, referenced: string): PlacementDecision {
    let sites: readonly SiteRecord[];
    if (this.direct.size === 0 && this.contributions.length <= 1) {
      sites = this.contributions[0] ?? [];
    } else {
      const all = new Map(this.direct);
      for (const list of this.contributions) for (const site of list) all.set(site.name, site);
      sites = [...all.keys()].sort().map((name) => all.get(name) as SiteRecord);
    }
    return { source, sites, problems: this.problems, siteDependencies: [...this.siteDependencies], virtualSiteDependencies: [...this.virtualSiteDependencies], referenced };
  }
}
