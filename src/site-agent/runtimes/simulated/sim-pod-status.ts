import { createHash } from 'node:crypto';
import { goSeconds, rfc3339 } from '../kubelet/go-duration.js';
import type { SimContainer, SimPodState, SimTermination } from './sim-pod.js';

type Json = Record<string, unknown>;


function containerId(uid: string, container: string, run: number): string {
  return `simulated://${createHash('sha256').update(`${uid}/${container}/${run}`).digest('hex')}`;
}

function terminatedState(uid: string, c: SimContainer, t: SimTermination): Json {
  return { terminated: { exitCode: t.exitCode, reason: t.reason, startedAt: rfc3339(t.startedAt), finishedAt: rfc3339(t.finishedAt), containerID: containerId(uid, c.name, t.run) } };
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
 * The PodStatus kubelet 1.17 would report for a simulated pod in `state` (judged at
 * `state.at`): phase, the Initialized / Ready / ContainersReady / PodScheduled conditions
 * with kubelet's reasons and messages, hostIP, podIP(s) once containers ran, startTime,
 * init and app container statuses (waiting ContainerCreating / PodInitializing /
 * CrashLoopBackOff, running, terminated Completed / Error, lastState, restartCount,
 * `simulated://` container and image IDs), and the QoS class. Pure.
 */
export function renderSimPodStatus(state: SimPodState): Json {
  const { facts, stage } = state;
  const at = state.at;
  const initialized = state.initializedAt !== undefined;
  const started = stage.kind !== 'Pending' && stage.kind !== 'ContainerCreating';
  const phase = stage.kind === 'Succeeded' || stage.kind === 'Failed' ? stage.kind : started ? 'Running' : 'Pending';
  const isReady = (c: SimContainer): boolean => (stage.kind === 'Running' || stage.kind === 'Ready') && stage.startedAt + c.readyDelayMs <= at;
  const lastState = state.lastTermination;

  const containerStatuses = facts.containers.map((c) => {
    let current: Json;
    switch (stage.kind) {
      case 'Pending':
      case 'ContainerCreating':
        current = { waiting: { reason: initialized ? 'ContainerCreating' : 'PodInitializing' } };
        break;
      case 'Running':
      case 'Ready':
      case 'Terminating':
      case 'Stopped':
        current = { running: { startedAt: rfc3339(stage.kind === 'Running' || stage.kind === 'Ready' ? stage.startedAt : at) } };
        break;
      case 'Exited':
      case 'Succeeded':
      case 'Failed':
        current = terminatedState(facts.uid, c, stage.last);
        break;
      case 'BackOff':
        current = { waiting: { reason: 'CrashLoopBackOff', message: `back-off ${goSeconds(stage.backOffMs)} restarting failed container=${c.name} pod=${facts.name}_${facts.namespace}(${facts.uid})` } };
        break;
    }
    const shownLast = stage.kind === 'BackOff' ? stage.last : lastState;
    return {
      name: c.name,
      state: current,
      lastState: shownLast === undefined ? {} : terminatedState(facts.uid, c, shownLast),
      ready: isReady(c),
      restartCount: state.restartCount,
      image: c.image,
      imageID: started ? c.imageID : '',
      ...(started ? { containerID: containerId(facts.uid, c.name, stage.kind === 'Exited' || stage.kind === 'Succeeded' || stage.kind === 'Failed' ? stage.last.run : state.restartCount) } : {}),
      started: stage.kind === 'Running' || stage.kind === 'Ready',
    };
  });

  const initContainerStatuses = facts.initContainers.map((c) => {
    const done = initialized;
    const t: SimTermination = { exitCode: 0, reason: 'Completed', startedAt: state.initializedAt ?? at, finishedAt: state.initializedAt ?? at, run: 0 };
    return {
      name: c.name,
      state: done ? terminatedState(facts.uid, c, t) : { waiting: { reason: 'PodInitializing' } },
      lastState: {},
      ready: done,
      restartCount: 0,
      image: c.image,
      imageID: done ? c.imageID : '',
      ...(done ? { containerID: containerId(facts.uid, c.name, 0) } : {}),
    };
  });

  const unready = facts.containers.filter((c) => !isReady(c)).map((c) => c.name);
  const completed = phase === 'Succeeded';
  const readyReason = completed ? 'PodCompleted' : unready.length > 0 ? 'ContainersNotReady' : undefined;
  const readyMessage = completed || unready.length === 0 ? undefined : `containers with unready status: [${unready.join(' ')}]`;
  const allReady = stage.kind === 'Ready';
  const conditions = [
    initialized
      ? condition('Initialized', true, state.initializedAt ?? at, completed && facts.initContainers.length > 0 ? 'PodCompleted' : undefined)
      : condition('Initialized', false, state.startTime ?? at, 'ContainersNotInitialized', `containers with incomplete status: [${facts.initContainers.map((c) => c.name).join(' ')}]`),
    condition('Ready', allReady, state.readyChangedAt, allReady ? undefined : readyReason, allReady ? undefined : readyMessage),
    condition('ContainersReady', allReady, state.readyChangedAt, allReady ? undefined : readyReason, allReady ? undefined : readyMessage),
    condition('PodScheduled', true, facts.scheduledAt),
  ];

  return {
    phase,
    conditions,
    hostIP: facts.hostIP,
    ...(started ? { podIP: facts.podIP, podIPs: [{ ip: facts.podIP }] } : {}),
    ...(state.startTime === undefined ? {} : { startTime: rfc3339(state.startTime) }),
    ...(initContainerStatuses.length > 0 ? { initContainerStatuses } : {}),
    containerStatuses,
    qosClass: facts.qosClass,
  };
}
