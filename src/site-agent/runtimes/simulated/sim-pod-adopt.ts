import type { KubeObject } from '../../../apimachinery/object.js';
import type { SimPodFacts, SimPodState, SimTermination } from './sim-pod.js';

interface ReportedContainer {
  ready?: boolean;
  restartCount?: number;
  state?: { running?: { startedAt?: string }; terminated?: { exitCode?: number; startedAt?: string; finishedAt?: string } };
}

interface ReportedStatus {
  phase?: string;
  podIP?: string;
  startTime?: string;
  conditions?: Array<{ type?: string; status?: string; lastTransitionTime?: string }>;
  containerStatuses?: ReportedContainer[];
}

function time(text: string | undefined, fallback: number): number {
  const ms = text === undefined ? NaN : Date.parse(text);
  return Number.isNaN(ms) ? fallback : ms;
}

/**
 * The state of a pod the agent finds already running or finished (it restarted, and the
 * pod's status says a runtime ran it): Ready when every container is ready and running,
 * Succeeded / Failed when it finished — continuing without reporting anything, as kubelet
 * recovers its containers after a restart. Undefined when the pod must start afresh. Pure;
 * the pod's reported podIP replaces the one in `facts`.
 */
export function adoptSimPod(facts: SimPodFacts, pod: KubeObject, now: number): SimPodState | undefined {
  const status = (pod['status'] ?? {}) as ReportedStatus;
  const containers = status.containerStatuses ?? [];
  if (containers.length !== facts.containers.length || containers.length === 0 || status.podIP === undefined) return undefined;
  const first = containers[0] as ReportedContainer;
  const startTime = time(status.startTime, now);
  const readyChangedAt = time(status.conditions?.find((c) => c.type === 'Ready')?.lastTransitionTime, now);
  const base = { facts: { ...facts, podIP: status.podIP }, at: now, startTime, initializedAt: startTime, restartCount: first.restartCount ?? 0, readyChangedAt };
  if (status.phase === 'Running' && containers.every((c) => c.ready === true && c.state?.running !== undefined)) {
    const startedAt = time(first.state?.running?.startedAt, now);
    const run = facts.run;
    const exit = run === undefined ? undefined : { at: Math.max(now, startedAt + run.ms), exitCode: run.exitCode };
    return { ...base, stage: { kind: 'Ready', startedAt, ...(exit === undefined ? {} : { exit }) }, ...(exit === undefined ? {} : { wakeAt: exit.at }) };
  }
  if (status.phase === 'Succeeded' || status.phase === 'Failed') {
    const t = first.state?.terminated;
    const last: SimTermination = {
      exitCode: t?.exitCode ?? (status.phase === 'Succeeded' ? 0 : 1),
      reason: status.phase === 'Succeeded' ? 'Completed' : 'Error',
      startedAt: time(t?.startedAt, startTime),
      finishedAt: time(t?.finishedAt, now),
      run: first.restartCount ?? 0,
    };
    return { ...base, stage: { kind: status.phase, last } };
  }
  return undefined;
}
