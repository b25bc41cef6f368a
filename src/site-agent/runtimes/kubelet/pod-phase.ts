import { SIDECAR_CONTAINER_NAME } from '../../../api/sidecar-injection.js';
import type { PodRecord } from './pod-record.js';

/**
 * The pod phase as kubelet's getPhase decides it: Failed when kubelet refused the pod; Pending while init containers have not all
 * succeeded (Failed if one failed under restartPolicy Never) or a container waits for its first
 * run; Running while one runs; once all stopped, Running under Always (they restart),
 * Succeeded when all exited 0, Failed under Never, Running under OnFailure. The injected
 * sidecar serves the workload: the workload's containers decide the phase. An evicted pod is
 * Failed, whatever its containers (kubelet's eviction manager sets the phase). Pure.
 */
export function podPhase(pod: PodRecord): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  if (pod.evicted !== undefined) return 'Failed';
  if (pod.failure?.final === true) return 'Failed';
  if (pod.failure !== undefined && pod.podIP === undefined) return 'Pending';
  const initFailed = pod.initContainers.some((c) => c.current.kind === 'terminated' && c.current.termination.exitCode !== 0);
  if (pod.initializedAt === undefined) return initFailed && pod.restartPolicy === 'Never' ? 'Failed' : 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of pod.containers) {
    if (c.name === SIDECAR_CONTAINER_NAME) continue;
    if (c.current.kind === 'running') running++;
    else if (c.current.kind === 'terminated') {
      stopped++;
      if (c.current.termination.exitCode === 0) succeeded++;
    } else if (c.lastTermination !== undefined) stopped++;
    else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped === 0) return 'Pending';
  if (pod.restartPolicy === 'Always') return 'Running';
  if (stopped === succeeded) return 'Succeeded';
  return pod.restartPolicy === 'Never' ? 'Failed' : 'Running';
}

/** Ready as the pod's Ready condition says it: Running, and every container (the sidecar included) ready. Pure. */
export function podReady(pod: PodRecord): boolean {
  return podPhase(pod) === 'Running' && pod.containers.every((c) => c.ready);
}
