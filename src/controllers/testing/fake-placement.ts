import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { PlacedSite } from '../placement/placed-site.js';
import type { PlacementView, WorkloadPlacement } from '../placement/placement-view.js';

/** The cluster every controller test works in. */
export const testCluster: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };

/** A placed site named `name` (labelled `svc.io/siteName`), a regional edge unless told. */
export const site = (name: string, type: PlacedSite['type'] = 'REGIONAL_EDGE'): PlacedSite => ({ name, type, labels: { [POD_SITE_LABEL]: name } });

/** A bare name as {@link FakePlacement.place} reads it: `re-…` is a regional edge, anything else a customer edge. */
const siteNamed = (name: string): PlacedSite => site(name, name.startsWith('re-') ? 'REGIONAL_EDGE' : 'CUSTOMER_EDGE');

/**
 * A placement view whose sites the test sets: for everything, or per object name. Every
 * change is told to the controllers for each of `clusters` (default the test cluster).
 */
export class FakePlacement implements PlacementView {
  private sites: readonly PlacedSite[] = [];
  private readonly perObject = new Map<string, readonly PlacedSite[]>();
  private readonly unresolvedObjects = new Map<string, string>();
  private readonly handlers: Array<(cluster: ClusterRef) => void> = [];

  constructor(private readonly clusters: readonly ClusterRef[] = [testCluster]) {}

  sitesFor(_resource: { group: string; resource: string }, _cluster: ClusterRef, object: KubeObject): readonly PlacedSite[] {
    return this.perObject.get(object.metadata.name ?? '') ?? this.sites;
  }

  /** As the engine: an object made unresolved ({@link unresolveObject}) keeps the sites it runs on. */
  placementOf(resource: { group: string; resource: string }, cluster: ClusterRef, object: KubeObject, running: Iterable<string>): WorkloadPlacement {
    const unresolved = this.unresolvedObjects.get(object.metadata.name ?? '');
    if (unresolved === undefined) return { sites: this.sitesFor(resource, cluster, object) };
    const known = new Map([...this.sites, ...[...this.perObject.values()].flat()].map((s) => [s.name, s]));
    return { sites: [...new Set(running)].sort().map((name) => known.get(name) ?? siteNamed(name)), unresolved };
  }

  onClusterChange(handler: (cluster: ClusterRef) => void): void {
    this.handlers.push(handler);
  }

  /** Places everything on `sites` (sites, or bare names: see siteNamed) and tells the controllers. */
  place(sites: ReadonlyArray<PlacedSite | string>): void {
    this.sites = sites.map((s) => (typeof s === 'string' ? siteNamed(s) : s));
    this.changed();
  }

  /** Places the object named `name` on `sites` and tells the controllers. */
  placeObject(name: string, sites: readonly PlacedSite[]): void {
    this.perObject.set(name, sites);
    this.unresolvedObjects.delete(name);
    this.changed();
  }

  /** Makes the placement of the object named `name` resolve to no site (`message` names the references) and tells the controllers. */
  unresolveObject(name: string, message: string): void {
    this.perObject.set(name, []);
    this.unresolvedObjects.set(name, message);
    this.changed();
  }

  private changed(): void {
    for (const cluster of this.clusters) for (const handler of this.handlers) handler(cluster);
  }
}
