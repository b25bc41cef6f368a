import type { PodSpec } from '../../../../api/pod-spec-types.js';
import { SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';

/** How a pod's containers stop (kubelet's killPodWithSyncResult), in this order. */
export interface TerminationActions {
  /** Containers to announce with a `Killing` Event (the pod's deletion is reported). */
  readonly announce: readonly string[];
  /** 1. Running workload containers whose preStop hook runs first, within the grace period. */
  readonly preStop: readonly string[];
  /** 2. The workload's containers: SIGTERM, SIGKILL at the deadline. */
  readonly stop: readonly string[];
  readonly deadline: number;
  /** 3. Then the sidecar (it serves the workload to the end), given at least `sidecarMinGraceMs` after the workload stopped. */
  readonly stopLast: readonly string[];
  readonly sidecarMinGraceMs: number;
}

/** The sidecar gets at least this long after the workload stopped. */
const SIDECAR_MIN_GRACE_MS = 2000;

/** The termination of a pod whose `running` containers stop within `graceMs` from `now`. Pure. */
export function computeTermination(spec: PodSpec, running: readonly string[], now: number, graceMs: number, report: boolean): TerminationActions {
  const workload = running.filter((name) => name !== SIDECAR_CONTAINER_NAME);
  const hooks = new Set((spec.containers ?? []).filter((c) => c.lifecycle?.preStop != null).map((c) => c.name ?? ''));
  return {
    announce: report ? running : [],
    preStop: workload.filter((name) => hooks.has(name)),
    stop: workload,
    deadline: now + graceMs,
    stopLast: running.filter((name) => name === SIDECAR_CONTAINER_NAME),
    sidecarMinGraceMs: SIDECAR_MIN_GRACE_MS,
  };
}
