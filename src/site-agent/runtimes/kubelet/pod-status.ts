import { rfc3339 } from './go-duration.js';
import { SIDECAR_CONTAINER } from '../runc/sidecar/sidecar-launch.js';
import type { ContainerRecord, ContainerTermination, PodRecord } from './pod-record.js';

type Json = Record<string, unknown>;

function terminated(t: ContainerTermination): Json {
  return {
    terminated: {
      exitCode: t.exitCode,
      reason: t.reason,
      ...(t.message === undefined ? {} : { message: t.message }),
      startedAt: rfc3339(t.startedAt),
      finishedAt: rfc3339(t.finishedAt),
      containerID: t.containerID,
    },
  };
}

function containerStatus(c: ContainerRecord, init: boolean): Json {
  const current = c.current;
  const state =
    current.kind === 'waiting'
      ? { waiting: { reason: current.reason, ...(current.message === undefined ? {} : { message: current.message }) } }
      : current.kind === 'running'
        ? { running: { startedAt: rfc3339(current.startedAt) } }
        : terminated(current.termination);
  const containerID = current.kind === 'running' ? current.containerID : current.kind === 'terminated' ? current.termination.containerID : c.lastTermination?.containerID;
  return {
    name: c.name,
    state,
    lastState: c.lastTermination === undefined ? {} : terminated(c.lastTermination),
    ready: c.ready,
    restartCount: c.restartCount,
    image: c.image,
    imageID: c.imageID,
    ...(containerID === undefined ? {} : { containerID }),
    ...(init ? {} : { started: c.current.kind === 'running' && c.started }),
  };
}

function condition(type: string, ok: boolean, at: number | string, reason?: string, message?: string): Json {
  return {
    type,
    status: ok ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: typeof at === 'string' ? at : rfc3339(at),
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
  };
}

/**
 * The pod phase as kubelet's getPhase decides it: Pending while init containers have not all
 * succeeded (Failed if one failed under restartPolicy Never) or a container waits for its first
 * run; Running while one runs; once all stopped, Running under Always (they restart),
 * Succeeded when all exited 0, Failed under Never, Running under OnFailure. Pure.
 */
export function podPhase(pod: PodRecord): 'Pending' | 'Running' | 'Succeeded' | 'Failed' {
  if (pod.failure !== undefined && pod.podIP === undefined) return 'Pending';
  const initFailed = pod.initContainers.some((c) => c.current.kind === 'terminated' && c.current.termination.exitCode !== 0);
  if (pod.initializedAt === undefined) return initFailed && pod.restartPolicy === 'Never' ? 'Failed' : 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  // The injected sidecar serves the workload; the workload's containers decide the phase.
  for (const c of pod.containers) {
    if (c.name === SIDECAR_CONTAINER) continue;
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

/**
 * The PodStatus kubelet 1.17 writes for `pod`: phase, the Initialized / Ready /
 * ContainersReady / PodScheduled conditions with kubelet's reasons and messages, hostIP,
 * podIP(s), startTime, init and app container statuses and the QoS class. Pure.
 */
export function renderPodStatus(pod: PodRecord, now: number): Json {
  const phase = podPhase(pod);
  const completed = phase === 'Succeeded';
  const initialized = pod.initializedAt !== undefined;
  const unready = pod.containers.filter((c) => !c.ready).map((c) => c.name);
  const allReady = unready.length === 0 && phase === 'Running';
  const readyReason = completed ? 'PodCompleted' : allReady ? undefined : 'ContainersNotReady';
  const readyMessage = completed || allReady ? undefined : `containers with unready status: [${unready.join(' ')}]`;
  const pendingInit = pod.initContainers.filter((c) => !(c.current.kind === 'terminated' && c.current.termination.exitCode === 0)).map((c) => c.name);
  const conditions = [
    initialized
      ? condition('Initialized', true, pod.initializedAt ?? now, completed && pod.initContainers.length > 0 ? 'PodCompleted' : undefined)
      : condition('Initialized', false, pod.startTime ?? now, 'ContainersNotInitialized', `containers with incomplete status: [${pendingInit.join(' ')}]`),
    condition('Ready', allReady, pod.readyChangedAt, readyReason, readyMessage),
    condition('ContainersReady', allReady, pod.readyChangedAt, readyReason, readyMessage),
    condition('PodScheduled', true, pod.scheduledAt),
  ];
  return {
    phase,
    conditions,
    ...(pod.failure === undefined ? {} : { reason: pod.failure.reason, message: pod.failure.message }),
    hostIP: pod.hostIP,
    ...(pod.podIP === undefined ? {} : { podIP: pod.podIP, podIPs: [{ ip: pod.podIP }] }),
    ...(pod.startTime === undefined ? {} : { startTime: rfc3339(pod.startTime) }),
    ...(pod.initContainers.length > 0 ? { initContainerStatuses: pod.initContainers.map((c) => containerStatus(c, true)) } : {}),
    containerStatuses: pod.containers.map((c) => containerStatus(c, false)),
    qosClass: pod.qosClass,
  };
}
