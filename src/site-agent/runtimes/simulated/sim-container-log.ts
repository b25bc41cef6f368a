import { SiteStreamError } from '../../../site-api/pod-streams.js';
import type { SimLogRun } from './sim-log.js';
import type { SimPodState, SimStage, SimTermination } from './sim-pod.js';

/** The runs of one container whose logs exist: the one shown as its state, the one shown as its lastState, or why it has none. */
interface SimContainerRuns {
  readonly current?: SimLogRun;
  readonly previous?: SimLogRun;
  /** The waiting reason when no run is shown as its state. */
  readonly waiting?: string;
}

const runOf = (t: SimTermination): SimLogRun => ({ restart: t.run, startedAt: t.startedAt, finishedAt: t.finishedAt });

/**
 * A container's runs as its status shows them (renderSimPodStatus): an app container's run
 * is the pod's, running or terminated, with the run before as lastState; an init
 * container ran once, at once, when the pod was initialized. A terminating pod's containers
 * run on; a stopped pod's runs ended when it stopped. Undefined when the pod has no such container.
 */
function containerRuns(state: SimPodState, container: string): SimContainerRuns | undefined {
  const { facts } = state;
  if (facts.initContainers.some((c) => c.name === container)) {
    const at = state.initializedAt;
    return at === undefined ? { waiting: 'PodInitializing' } : { current: { restart: 0, startedAt: at, finishedAt: at } };
  }
  if (!facts.containers.some((c) => c.name === container)) return undefined;
  const previous = state.lastTermination === undefined ? undefined : runOf(state.lastTermination);
  return stageRuns(state, state.stage, previous);
}

function stageRuns(state: SimPodState, stage: SimStage, previous: SimLogRun | undefined): SimContainerRuns {
  const withPrevious = previous === undefined ? {} : { previous };
  switch (stage.kind) {
    case 'Pending':
    case 'ContainerCreating':
      return { waiting: state.initializedAt === undefined ? 'PodInitializing' : 'ContainerCreating', ...withPrevious };
    case 'Running':
    case 'Ready':
      return { current: { restart: state.restartCount, startedAt: stage.startedAt }, ...withPrevious };
    case 'Exited':
    case 'Succeeded':
    case 'Failed':
      return { current: runOf(stage.last), ...withPrevious };
    case 'BackOff':
      // kubelet shows the ended run as lastState and serves its log while the container waits.
      return { current: runOf(stage.last), previous: runOf(stage.last) };
    case 'Terminating':
      return stage.was === undefined ? { waiting: 'ContainerCreating' } : stageRuns(state, stage.was, previous);
    case 'Stopped': {
      const runs = stage.was === undefined ? { waiting: 'ContainerCreating' } : stageRuns(state, stage.was, previous);
      const current = runs.current;
      return current === undefined || current.finishedAt !== undefined ? runs : { ...runs, current: { ...current, finishedAt: state.at } };
    }
  }
}

/**
 * The run whose log `kubectl logs` (with `previous`) gets, or kubelet's refusal: 404 `pod "p"
 * does not exist` / `container "c" not found in pod "p"`, and 400 (as kubelet's log
 * endpoint answers its status checks) `previous terminated container "c" in pod "p" not
 * found` or `container "c" in pod "p" is waiting to start: ContainerCreating`. Pure.
 */
export function simLogRunOf(state: SimPodState | undefined, pod: string, container: string, previous: boolean): SimLogRun | SiteStreamError {
  if (state === undefined) return new SiteStreamError(404, `pod ${JSON.stringify(pod)} does not exist`);
  const runs = containerRuns(state, container);
  if (runs === undefined) return new SiteStreamError(404, `container ${JSON.stringify(container)} not found in pod ${JSON.stringify(pod)}`);
  if (previous) return runs.previous ?? new SiteStreamError(400, `previous terminated container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} not found`);
  return runs.current ?? new SiteStreamError(400, `container ${JSON.stringify(container)} in pod ${JSON.stringify(pod)} is waiting to start: ${runs.waiting ?? 'ContainerCreating'}`);
}

/** Whether the container runs now (what exec and attach need). */
export function simContainerRunning(state: SimPodState, container: string): boolean {
  const run = containerRuns(state, container)?.current;
  return run !== undefined && run.finishedAt === undefined;
}

/** When `run` ended, as `state` says now (undefined: it goes on); a run `state` no longer knows ended at `now`. */
export function simLogRunEnd(state: SimPodState | undefined, container: string, run: SimLogRun, now: number): number | undefined {
  const runs = state === undefined ? undefined : containerRuns(state, container);
  const same = [runs?.current, runs?.previous].find((r) => r !== undefined && r.restart === run.restart && r.startedAt === run.startedAt);
  return same === undefined ? now : same.finishedAt;
}
