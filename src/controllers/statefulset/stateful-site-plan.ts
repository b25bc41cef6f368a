/**
 * What the StatefulSet controller does on one site, as a pure function of the site's pods
 * (kube's defaultStatefulSetControl.updateStatefulSet, one pass): ordinals 0..replicas-1
 * must exist, be Running and Ready; higher ordinals are condemned and removed from the
 * highest down; a RollingUpdate replaces pods not at the update revision from the highest
 * ordinal down to the partition, one at a time, each waiting for the previous to be Ready.
 * With OrderedReady a pass stops at the first pod it created, deleted, or found unhealthy;
 * with Parallel it creates and removes all at once (updates stay one at a time, as kube).
 */

/** One of the site's pods, as the planner sees it. */
export interface StatefulPodView {
  readonly ordinal: number;
  readonly name: string;
  readonly uid: string;
  /** Its `controller-revision-hash` label. */
  readonly revision: string | undefined;
  /** Its status phase ('' when unset). */
  readonly phase: string;
  readonly ready: boolean;
  readonly terminating: boolean;
}

export interface StatefulSitePlanInput {
  readonly replicas: number;
  /** podManagementPolicy OrderedReady (else Parallel). */
  readonly orderedReady: boolean;
  /** updateStrategy RollingUpdate (else OnDelete). */
  readonly rollingUpdate: boolean;
  readonly partition: number;
  readonly updateRevision: string;
  readonly pods: readonly StatefulPodView[];
}

export type StatefulAction =
  | { readonly type: 'create'; readonly ordinal: number }
  | { readonly type: 'delete'; readonly name: string; readonly uid: string; readonly why: 'failed' | 'condemned' | 'update' };

export interface StatefulSitePlan {
  readonly actions: readonly StatefulAction[];
  /** Nothing left to do: every ordinal exists, is healthy and (rolling update) at the update revision at or above the partition, nothing condemned remains. */
  readonly settled: boolean;
}

const runningAndReady = (pod: StatefulPodView): boolean => pod.phase === 'Running' && pod.ready;
const healthy = (pod: StatefulPodView): boolean => runningAndReady(pod) && !pod.terminating;

export function planStatefulSite(input: StatefulSitePlanInput): StatefulSitePlan {
  const actions: StatefulAction[] = [];
  const slots = new Map<number, StatefulPodView>();
  const condemned: StatefulPodView[] = [];
  for (const pod of input.pods) {
    if (pod.ordinal < input.replicas) slots.set(pod.ordinal, pod);
    else condemned.push(pod);
  }
  condemned.sort((a, b) => b.ordinal - a.ordinal);
  const done = (): StatefulSitePlan => ({ actions, settled: false });

  let allHealthy = true;
  for (let ordinal = 0; ordinal < input.replicas; ordinal++) {
    const pod = slots.get(ordinal);
    if (pod === undefined) {
      actions.push({ type: 'create', ordinal });
      allHealthy = false;
      if (input.orderedReady) return done();
      continue;
    }
    if (pod.phase === 'Failed' && !pod.terminating) {
      actions.push({ type: 'delete', name: pod.name, uid: pod.uid, why: 'failed' });
      allHealthy = false;
      if (input.orderedReady) return done();
      continue;
    }
    if (!healthy(pod)) {
      allHealthy = false;
      if (input.orderedReady) return done();
    }
  }

  for (const pod of condemned) {
    if (pod.terminating) {
      if (input.orderedReady) return done();
      continue;
    }
    actions.push({ type: 'delete', name: pod.name, uid: pod.uid, why: 'condemned' });
    if (input.orderedReady) return done();
  }

  if (input.rollingUpdate) {
    for (let ordinal = input.replicas - 1; ordinal >= Math.max(0, input.partition); ordinal--) {
      const pod = slots.get(ordinal);
      if (pod === undefined) return done();
      if (pod.revision !== input.updateRevision && !pod.terminating) {
        actions.push({ type: 'delete', name: pod.name, uid: pod.uid, why: 'update' });
        return done();
      }
      if (!healthy(pod)) return done();
    }
  }
  return { actions, settled: actions.length === 0 && allHealthy && condemned.length === 0 };
}

/** A site the StatefulSet left (no longer placed there): every pod goes, all at once. */
export function planLeftSite(pods: readonly StatefulPodView[]): StatefulSitePlan {
  const actions: StatefulAction[] = pods.filter((p) => !p.terminating).map((p) => ({ type: 'delete', name: p.name, uid: p.uid, why: 'condemned' }));
  return { actions, settled: pods.length === 0 };
}

/** A site's share of the StatefulSet's status (kube's counting rules). */
export interface StatefulSiteCounts {
  readonly replicas: number;
  readonly readyReplicas: number;
  readonly currentReplicas: number;
  readonly updatedReplicas: number;
}

/**
 * kube's status counts: every pod with a phase counts as a replica; ready ones are Running
 * and Ready; current/updated ones are not terminating and carry that revision.
 */
export function countStatefulSite(pods: readonly StatefulPodView[], currentRevision: string, updateRevision: string): StatefulSiteCounts {
  let replicas = 0;
  let readyReplicas = 0;
  let currentReplicas = 0;
  let updatedReplicas = 0;
  for (const pod of pods) {
    if (pod.phase === '') continue;
    replicas++;
    if (runningAndReady(pod)) readyReplicas++;
    if (pod.terminating) continue;
    if (pod.revision === currentRevision) currentReplicas++;
    if (pod.revision === updateRevision) updatedReplicas++;
  }
  return { replicas, readyReplicas, currentReplicas, updatedReplicas };
}
