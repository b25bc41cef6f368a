import { goSeconds } from './go-duration.js';
import type { ContainerState } from './pod-record.js';

/** The pod as kubelet names it in its messages: `<name>_<namespace>(<uid>)`. */
export interface PodName {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
}

/** A container held back by its crash back-off: kubelet's `CrashLoopBackOff` waiting state and message. */
export function crashLoopBackOff(delayMs: number, container: string, pod: PodName): ContainerState {
  return { kind: 'waiting', reason: 'CrashLoopBackOff', message: `back-off ${goSeconds(delayMs)} restarting failed container=${container} pod=${pod.name}_${pod.namespace}(${pod.uid})` };
}

/** A container not started yet: `PodInitializing` while init containers run, else `ContainerCreating`. */
export function notStartedYet(initialized: boolean): ContainerState {
  return { kind: 'waiting', reason: initialized ? 'ContainerCreating' : 'PodInitializing' };
}
