import { createHash } from 'node:crypto';
import type { QosClass } from '../../../api/pod-spec-qos.js';
import { crashLoopBackOff, notStartedYet, renderPodStatus, type ContainerRecord, type ContainerTermination, type PodRecord } from '../kubelet/index.js';
import type { SimContainer, SimPodState, SimTermination } from './sim-pod.js';

function containerId(uid: string, container: string, run: number): string {
  return `simulated://${createHash('sha256').update(`${uid}/${container}/${run}`).digest('hex')}`;
}

function termination(uid: string, c: SimContainer, t: SimTermination): ContainerTermination {
  return { exitCode: t.exitCode, reason: t.reason, startedAt: t.startedAt, finishedAt: t.finishedAt, containerID: containerId(uid, c.name, t.run) };
}

/**
 * The record kubelet would keep of a simulated pod in `state` (judged at `state.at`): the
 * containers of a simulated pod share one lifecycle, so each shows the stage's state —
 * waiting ContainerCreating / PodInitializing / CrashLoopBackOff, running (also while the pod
 * terminates), terminated Completed / Error — with `simulated://` container and image IDs,
 * readiness per container, and the init containers done once the pod is initialized. Pure.
 */
function simPodRecord(state: SimPodState): PodRecord {
  const { facts, stage, at } = state;
  const initialized = state.initializedAt !== undefined;
  const started = stage.kind !== 'Pending' && stage.kind !== 'ContainerCreating';
  const shownLast = stage.kind === 'BackOff' ? stage.last : state.lastTermination;
  const containers = facts.containers.map((c): ContainerRecord => {
    const lastTermination = shownLast === undefined ? undefined : termination(facts.uid, c, shownLast);
    let current: ContainerRecord['current'];
    switch (stage.kind) {
      case 'Pending':
      case 'ContainerCreating':
        current = notStartedYet(initialized);
        break;
      case 'Running':
      case 'Ready':
      case 'Terminating':
      case 'Stopped':
        current = { kind: 'running', startedAt: stage.kind === 'Running' || stage.kind === 'Ready' ? stage.startedAt : at, containerID: containerId(facts.uid, c.name, state.restartCount) };
        break;
      case 'Exited':
      case 'Succeeded':
      case 'Failed':
        current = { kind: 'terminated', termination: termination(facts.uid, c, stage.last) };
        break;
      case 'BackOff':
        current = crashLoopBackOff(stage.backOffMs, c.name, facts);
        break;
    }
    const running = stage.kind === 'Running' || stage.kind === 'Ready';
    return {
      name: c.name,
      image: c.image,
      imageID: started ? c.imageID : '',
      restartCount: state.restartCount,
      current,
      ...(lastTermination === undefined ? {} : { lastTermination }),
      // Ready: every container is (an adopted pod's start time may lie ahead of this clock).
      ready: stage.kind === 'Ready' || (running && stage.startedAt + c.readyDelayMs <= at),
      started: running,
    };
  });
  const initContainers = facts.initContainers.map((c): ContainerRecord => {
    const done: SimTermination = { exitCode: 0, reason: 'Completed', startedAt: state.initializedAt ?? at, finishedAt: state.initializedAt ?? at, run: 0 };
    return {
      name: c.name,
      image: c.image,
      imageID: initialized ? c.imageID : '',
      restartCount: 0,
      current: initialized ? { kind: 'terminated', termination: termination(facts.uid, c, done) } : { kind: 'waiting', reason: 'PodInitializing' },
      ready: initialized,
      started: false,
    };
  });
  return {
    uid: facts.uid,
    name: facts.name,
    namespace: facts.namespace,
    hostIP: facts.hostIP,
    qosClass: facts.qosClass as QosClass,
    restartPolicy: facts.restartPolicy,
    scheduledAt: facts.scheduledAt,
    ...(started ? { podIP: facts.podIP } : {}),
    ...(state.startTime === undefined ? {} : { startTime: state.startTime }),
    ...(state.initializedAt === undefined ? {} : { initializedAt: state.initializedAt }),
    readyChangedAt: state.readyChangedAt,
    initContainers,
    containers,
  };
}

/** The PodStatus kubelet 1.17 would report for a simulated pod in `state` (see {@link simPodRecord}). Pure. */
export function renderSimPodStatus(state: SimPodState): Record<string, unknown> {
  return renderPodStatus(simPodRecord(state), state.at);
}
