import { metav1Time } from '../../../apimachinery/meta-time.js';
import type { ContainerRecord, ContainerTermination, PodRecord } from './pod-record.js';
import { podPhase } from './pod-phase.js';

type Json = Record<string, unknown>;

function terminated(t: ContainerTermination): Json {
  return {
    terminated: {
      exitCode: t.exitCode,
      reason: t.reason,
      ...(t.message === undefined ? {} : { message: t.message }),
      startedAt: metav1Time(t.startedAt),
      finishedAt: metav1Time(t.finishedAt),
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
        ? { running: { startedAt: metav1Time(current.startedAt) } }
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
    lastTransitionTime: typeof at === 'string' ? at : metav1Time(at),
    ...(reason === undefined ? {} : { reason }),
    ...(message === undefined ? {} : { message }),
  };
}

/**
 * The PodStatus kubelet 1.17 writes for `pod` at `now`: phase ({@link podPhase}), the
 * Initialized / Ready / ContainersReady / PodScheduled conditions with kubelet's reasons and
 * messages, hostIP, podIP(s), startTime, init and app container statuses and the QoS class.
 * An evicted pod's is what kubelet 1.17's eviction manager leaves: phase Failed, reason
 * `Evicted`, the message, startTime and the PodScheduled condition (the status manager keeps the
 * conditions it does not own), nothing else — so kubectl shows `Evicted`, not the containers'
 * last words. Both runtimes report through it. Pure.
 */
export function renderPodStatus(pod: PodRecord, now: number): Json {
  if (pod.evicted !== undefined) {
    return { phase: 'Failed', conditions: [condition('PodScheduled', true, pod.scheduledAt)], reason: 'Evicted', message: pod.evicted.message, startTime: metav1Time(pod.startTime ?? now) };
  }
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
    ...(pod.startTime === undefined ? {} : { startTime: metav1Time(pod.startTime) }),
    ...(pod.initContainers.length > 0 ? { initContainerStatuses: pod.initContainers.map((c) => containerStatus(c, true)) } : {}),
    containerStatuses: pod.containers.map((c) => containerStatus(c, false)),
    qosClass: pod.qosClass,
  };
}
