import type { Logger } from '../../observability/logger.js';
import type { PlacedSite } from '../placement/placed-site.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { specOf, statusOf, type StatefulSetSpec } from '../../vk8s/kinds/workload-types.js';
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { Expectations } from '../runtime/expectations.js';
import { hasReason, type ObjectWriter } from '../controller-kit/object-writer.js';
import type { PodTemplateFor } from '../placement/pod-template-for.js';
import { isControlledBy } from '../runtime/owner-references.js';
import { isPodReady, isTerminating, podPhase } from '../runtime/pod-state.js';
import { siteOf } from '../controller-kit/site-of.js';
import { formatSiteStatus, withSiteStatus } from '../controller-kit/site-status.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ReconcileResult } from '../runtime/work-loop.js';
import type { Informer } from '../runtime/object-informer.js';
import { formatObjectKey, type ObjectKey } from '../runtime/object-key.js';
import { templateRevision } from './revision-hash.js';
import { ordinalOf, REVISION_LABEL, statefulClaims, statefulPod } from './stateful-pod-factory.js';
import { countStatefulSite, planLeftSite, planStatefulSite, type StatefulAction, type StatefulPodView, type StatefulSiteCounts } from './stateful-site-plan.js';
import { statefulSetStatus, type StatefulSetStatusView } from './stateful-status.js';

const STATEFULSET_RESOURCE = { group: 'apps', resource: 'statefulsets' } as const;
const COMPONENT = 'statefulset-controller';

export interface StatefulSetReconcilerDeps {
  readonly statefulSets: Informer;
  readonly pods: Informer;
  readonly claims: Informer;
  readonly writers: { readonly statefulSets: ObjectWriter; readonly pods: ObjectWriter; readonly claims: ObjectWriter };
  readonly placement: PlacementView;
  readonly podTemplateFor: PodTemplateFor;
  readonly events: EventRecorder;
  readonly expectations: Expectations;
  readonly logger: Logger;
  /** Whether a site is offline: there the set only creates pods (they wait Pending); it deletes none until the site returns. */
  readonly siteOffline?: (site: string) => boolean;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * One reconcile of one StatefulSet: for every site it is placed on, plan the site's pods
 * ({@link planStatefulSite}) and carry the plan out (claims before pods); pods on sites it
 * left are deleted (their claims stay, as on scale-down); then the per-site breakdown goes
 * into the `svc.io/site-status` annotation and the sums into the status. While creations or
 * deletions it asked for are not yet seen by the informer, it only updates status.
 */
export function statefulSetReconciler(deps: StatefulSetReconcilerDeps): (key: ObjectKey) => Promise<ReconcileResult | void> {
  const { writers, events, expectations } = deps;

  const createPod = async (cluster: ClusterRef, set: KubeObject, site: PlacedSite, ordinal: number, revision: string, expectKey: string): Promise<string | undefined> => {
    const spec = specOf<StatefulSetSpec>(set);
    const pod = statefulPod({ statefulSet: set, site, ordinal, template: deps.podTemplateFor(cluster, set, spec.template ?? {}, site), revision });
    const podName = pod.metadata.name ?? '';
    for (const claim of statefulClaims(set, site.name, podName)) {
      const name = claim.metadata.name ?? '';
      if (deps.claims.get(cluster, name) !== undefined) continue;
      try {
        await writers.claims.create(cluster, claim);
        events.record(cluster, set, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata.name} success`, COMPONENT);
      } catch (error) {
        if (hasReason(error, 'AlreadyExists')) continue;
        events.record(cluster, set, 'Warning', 'FailedCreate', `create Claim ${name} for Pod ${podName} in StatefulSet ${set.metadata.name} failed error: ${messageOf(error)}`, COMPONENT);
        return `claim ${name}: ${messageOf(error)}`;
      }
    }
    expectations.expectCreations(expectKey, 1);
    try {
      await writers.pods.create(cluster, pod);
      events.record(cluster, set, 'Normal', 'SuccessfulCreate', `create Pod ${podName} in StatefulSet ${set.metadata.name} successful`, COMPONENT);
      return undefined;
    } catch (error) {
      expectations.creationObserved(expectKey);
      if (hasReason(error, 'AlreadyExists')) return undefined;
      events.record(cluster, set, 'Warning', 'FailedCreate', `create Pod ${podName} in StatefulSet ${set.metadata.name} failed error: ${messageOf(error)}`, COMPONENT);
      return `pod ${podName}: ${messageOf(error)}`;
    }
  };

  const deletePod = async (cluster: ClusterRef, set: KubeObject, action: Extract<StatefulAction, { type: 'delete' }>, expectKey: string): Promise<string | undefined> => {
    expectations.expectDeletions(expectKey, [action.uid]);
    try {
      const outcome = await writers.pods.delete(cluster, action.name, action.uid);
      if (outcome === 'gone') expectations.deletionObserved(expectKey, action.uid);
      else events.record(cluster, set, 'Normal', 'SuccessfulDelete', `delete Pod ${action.name} in StatefulSet ${set.metadata.name} successful`, COMPONENT);
      return undefined;
    } catch (error) {
      expectations.deletionObserved(expectKey, action.uid);
      events.record(cluster, set, 'Warning', 'FailedDelete', `delete Pod ${action.name} in StatefulSet ${set.metadata.name} failed error: ${messageOf(error)}`, COMPONENT);
      return `delete ${action.name}: ${messageOf(error)}`;
    }
  };

  return async (key) => {
    const expectKey = formatObjectKey(key);
    const set = deps.statefulSets.get(key.cluster, key.name);
    if (set === undefined) {
      expectations.forget(expectKey);
      return;
    }
    if (isTerminating(set)) return;
    const uid = set.metadata.uid ?? '';
    const spec = specOf<StatefulSetSpec>(set);
    const updateRevision = templateRevision(key.name, spec.template);
    const previous = statusOf<StatefulSetStatusView>(set);
    const currentRevision = previous.currentRevision !== undefined && previous.currentRevision !== '' ? previous.currentRevision : updateRevision;
    const rollingUpdate = (spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
    const podsBySite = sitePods(key.name, deps.pods.dependentsOf(uid).filter((p) => isControlledBy(p, set)));
    const placed = new Map(deps.placement.placementOf(STATEFULSET_RESOURCE, key.cluster, set, podsBySite.keys()).sites.map((s) => [s.name, s]));
    const canAct = expectations.satisfied(expectKey);
    const failures: string[] = [];
    const sites = new Map<string, { counts: StatefulSiteCounts; settled: boolean }>();
    for (const siteName of [...new Set([...placed.keys(), ...podsBySite.keys()])].sort()) {
      const pods = podsBySite.get(siteName) ?? [];
      const site = placed.get(siteName);
      const plan =
        site === undefined
          ? planLeftSite(pods)
          : planStatefulSite({
              replicas: spec.replicas ?? 1,
              orderedReady: (spec.podManagementPolicy ?? 'OrderedReady') !== 'Parallel',
              rollingUpdate,
              partition: spec.updateStrategy?.rollingUpdate?.partition ?? 0,
              updateRevision,
              pods,
            });
      // An offline site keeps its pods: deleting one (a scale-down, an update) waits for the site to return.
      const actions = site !== undefined && deps.siteOffline?.(siteName) === true ? plan.actions.filter((a) => a.type === 'create') : plan.actions;
      if (canAct) {
        for (const action of actions) {
          const failure =
            action.type === 'create'
              ? site === undefined
                ? undefined
                : await createPod(key.cluster, set, site, action.ordinal, updateRevision, expectKey)
              : await deletePod(key.cluster, set, action, expectKey);
          if (failure !== undefined) failures.push(failure);
        }
      }
      sites.set(siteName, { counts: countStatefulSite(pods, currentRevision, updateRevision), settled: plan.settled });
    }
    const breakdown = formatSiteStatus(new Map([...sites].map(([name, site]) => [name, site.counts])));
    const annotated = await writers.statefulSets.update(key.cluster, key.name, uid, (current) => withSiteStatus(current, breakdown));
    if (annotated !== 'gone') {
      const status = statefulSetStatus({ generation: set.metadata.generation ?? 1, previous, rollingUpdate, currentRevision, updateRevision, sites });
      await writers.statefulSets.update(key.cluster, key.name, uid, (current) => (jsonEqual(current.status, status) ? undefined : { ...current, status }), 'status');
    }
    if (failures.length > 0) throw new Error(`statefulset ${key.name}: ${failures.join('; ')}`);
  };
}

/** The StatefulSet's pods by site, as the planner sees them (pods whose names carry no ordinal of their site are left alone). */
function sitePods(setName: string, pods: readonly KubeObject[]): Map<string, StatefulPodView[]> {
  const bySite = new Map<string, StatefulPodView[]>();
  for (const pod of pods) {
    const site = siteOf(pod);
    if (site === undefined) continue;
    const ordinal = ordinalOf(setName, site, pod.metadata.name ?? '');
    if (ordinal === undefined) continue;
    const view: StatefulPodView = {
      ordinal,
      name: pod.metadata.name ?? '',
      uid: pod.metadata.uid ?? '',
      revision: pod.metadata.labels?.[REVISION_LABEL],
      phase: podPhase(pod),
      ready: isPodReady(pod),
      terminating: isTerminating(pod),
    };
    const list = bySite.get(site);
    if (list === undefined) bySite.set(site, [view]);
    else list.push(view);
  }
  return bySite;
}
