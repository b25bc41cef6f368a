import type { KubeObject } from '../../../../apimachinery/object.js';
import type { PodSpec } from '../../../../api/pod-spec-types.js';
import type { ClusterRef } from '../../../../site-api/site-api-types.js';
import type { ContainerRecord, PodEvents } from '../../kubelet/index.js';
import type { PodProber } from '../probes/index.js';
import type { ContainerWatches } from './container-watches.js';
import type { PodServices, RuncSite } from './pod-worker-deps.js';
import type { RuncPodState } from './runc-pod-state.js';

/** What the steps of a pod's worker act on: the pod, its state, its site's services and the worker's own helpers. */
export interface PodContext {
  readonly key: string;
  readonly cluster: ClusterRef;
  readonly uid: string;
  /** The pod's folder on the site; the sidecar's folder inside it. */
  readonly podDir: string;
  readonly runDir: string;
  readonly site: RuncSite;
  readonly services: PodServices;
  readonly events: PodEvents;
  readonly state: RuncPodState;
  readonly prober: PodProber;
  readonly watches: ContainerWatches;
  /** The control plane's latest pod. */
  pod(): KubeObject;
  /** When the control plane last listed the site's pods again (the runtime's `listed`), if it has since this worker began. */
  linkReturnedAt(): number | undefined;
  /** Syncs the pod again at `at` (or earlier, if something asked for that). */
  wakeAt(at: number): void;
}

export const specOf = (pod: KubeObject): PodSpec => (pod['spec'] ?? {}) as PodSpec;

/** The status record of container `name` (an app or init container). */
export function recordOf(context: PodContext, name: string): ContainerRecord | undefined {
  const { record } = context.state;
  return record.containers.find((c) => c.name === name) ?? record.initContainers.find((c) => c.name === name);
}
