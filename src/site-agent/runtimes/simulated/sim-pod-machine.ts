import type { SimOptions } from './sim-options.js';
import type { SimEvent, SimPodState, SimStage, SimStep, SimTermination } from './sim-pod.js';
import { renderSimPodStatus } from './sim-pod-status.js';
import { backOffAfterRestarts } from '../kubelet/index.js';

/** How long exited containers show as terminated before CrashLoopBackOff. */
const EXITED_SHOWN_MS = 1000;

/**
 * The simulated runtime's state machine for one pod (kwok-like), pure: `bound` starts
 * ContainerCreating; the first tick after `startMs` runs the containers (Running, then Ready
 * as each container's ready delay passes); a run may end — a crash drawn with
 * `failureRate` (exit 1, Error) or a planned exit (`facts.run`) — and then restarts with
 * back-off per restartPolicy or finishes (Succeeded / Failed); `delete` stops the pod after
 * `stopMs` (at most the grace period) and reports it terminated. Ticks before the wake time
 * change nothing. Returns a status whenever the reported status changed.
 */
export function stepSimPod(state: SimPodState, event: SimEvent, now: number, options: SimOptions): SimStep {
  const stage = state.stage;
  switch (event.type) {
    case 'bound':
      if (stage.kind !== 'Pending') return { state };
      return changed({
        ...state,
        stage: { kind: 'ContainerCreating' },
        at: now,
        startTime: now,
        ...(state.facts.initContainers.length === 0 ? { initializedAt: now } : {}),
        readyChangedAt: now,
        wakeAt: now + options.startMs,
      });
    case 'delete':
      return deleteStep(state, now, event.graceMs, options);
    case 'tick':
      if (state.wakeAt === undefined || now < state.wakeAt) return { state };
      return tick(state, now, event.roll, options);
  }
}

function tick(state: SimPodState, now: number, roll: number, options: SimOptions): SimStep {
  const stage = state.stage;
  switch (stage.kind) {
    case 'ContainerCreating':
      return start(state, now, roll, options, state.restartCount);
    case 'Running':
    case 'Ready':
      if (stage.exit !== undefined && now >= stage.exit.at) return exit(state, stage.startedAt, now, stage.exit.exitCode);
      return readiness(state, stage.startedAt, stage.exit, now);
    case 'Exited':
      if (now < stage.restartAt) return changed({ ...state, stage: { ...stage, kind: 'BackOff' }, at: now, wakeAt: stage.restartAt });
      return start({ ...state, lastTermination: stage.last }, now, roll, options, state.restartCount + 1);
    case 'BackOff':
      return start({ ...state, lastTermination: stage.last }, now, roll, options, state.restartCount + 1);
    case 'Terminating':
      return { state: { ...state, stage: stopped(stage.was), at: now, wakeAt: undefined }, terminated: true };
    case 'Pending':
    case 'Succeeded':
    case 'Failed':
    case 'Stopped':
      return { state: { ...state, wakeAt: undefined } };
  }
}

/** A run of the containers begins: a crash is drawn, a planned exit scheduled. */
function start(state: SimPodState, now: number, roll: number, options: SimOptions, restartCount: number): SimStep {
  const crashAt = roll < options.failureRate ? now + options.crashAfterMs : undefined;
  const run = state.facts.run;
  const plannedAt = run === undefined ? undefined : now + run.ms;
  let exit: { at: number; exitCode: number } | undefined;
  if (crashAt !== undefined && (plannedAt === undefined || crashAt <= plannedAt)) exit = { at: crashAt, exitCode: 1 };
  else if (plannedAt !== undefined && run !== undefined) exit = { at: plannedAt, exitCode: run.exitCode };
  const initializedAt = state.initializedAt ?? now;
  return readiness({ ...state, restartCount, initializedAt }, now, exit, now, true);
}

/** Running or Ready at `now`, waking at the next container's ready time or the run's end. */
function readiness(state: SimPodState, startedAt: number, exit: { at: number; exitCode: number } | undefined, now: number, started = false): SimStep {
  const containers = state.facts.containers;
  const readyAt = containers.map((c) => startedAt + c.readyDelayMs);
  const allReady = readyAt.every((at) => at <= now);
  const nextReady = readyAt.filter((at) => at > now).reduce((a, b) => Math.min(a, b), Infinity);
  const wake = Math.min(nextReady, exit?.at ?? Infinity);
  const kind = allReady ? 'Ready' : 'Running';
  const wasReady = state.stage.kind === 'Ready';
  const readyBefore = started ? 0 : readyAt.filter((at) => at <= state.at).length;
  const readyNow = readyAt.filter((at) => at <= now).length;
  const next: SimPodState = {
    ...state,
    stage: { kind, startedAt, ...(exit === undefined ? {} : { exit }) },
    at: now,
    readyChangedAt: allReady !== wasReady ? now : state.readyChangedAt,
    wakeAt: Number.isFinite(wake) ? wake : undefined,
  };
  if (!started && kind === state.stage.kind && readyBefore === readyNow) return { state: next };
  return changed(next);
}

/** The run ended at `now`: restart with back-off, or finish, per restartPolicy. */
function exit(state: SimPodState, startedAt: number, now: number, exitCode: number): SimStep {
  const last: SimTermination = { exitCode, reason: exitCode === 0 ? 'Completed' : 'Error', startedAt, finishedAt: now, run: state.restartCount };
  const policy = state.facts.restartPolicy;
  const readyChangedAt = state.stage.kind === 'Ready' ? now : state.readyChangedAt;
  if (policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0)) {
    const wait = backOffAfterRestarts(state.restartCount);
    const restartAt = now + wait;
    return changed({ ...state, stage: { kind: 'Exited', last, restartAt, backOffMs: wait }, at: now, readyChangedAt, wakeAt: Math.min(restartAt, now + EXITED_SHOWN_MS) });
  }
  const stage: SimStage = exitCode === 0 ? { kind: 'Succeeded', last } : { kind: 'Failed', last };
  return changed({ ...state, stage, at: now, readyChangedAt, wakeAt: undefined });
}

function deleteStep(state: SimPodState, now: number, graceMs: number, options: SimOptions): SimStep {
  const stage = state.stage;
  switch (stage.kind) {
    case 'Stopped':
      return { state };
    case 'Terminating': {
      const stopAt = Math.min(stage.stopAt, now + Math.max(0, graceMs));
      if (stopAt <= now) return { state: { ...state, stage: stopped(stage.was), at: now, wakeAt: undefined }, terminated: true };
      return { state: { ...state, stage: { ...stage, stopAt }, wakeAt: stopAt } };
    }
    case 'Pending':
    case 'Succeeded':
    case 'Failed':
      return { state: { ...state, stage: stopped(stage), at: now, wakeAt: undefined }, terminated: true };
    case 'ContainerCreating':
    case 'Running':
    case 'Ready':
    case 'Exited':
    case 'BackOff': {
      const stopAt = now + Math.min(options.stopMs, Math.max(0, graceMs));
      if (stopAt <= now) return { state: { ...state, stage: stopped(stage), at: now, wakeAt: undefined }, terminated: true };
      return { state: { ...state, stage: { kind: 'Terminating', stopAt, was: stage }, at: now, wakeAt: stopAt } };
    }
  }
}

/** Stopped, remembering the stage whose containers were stopped (their logs). */
function stopped(was: SimStage | undefined): SimStage {
  return was === undefined ? { kind: 'Stopped' } : { kind: 'Stopped', was };
}

function changed(state: SimPodState): SimStep {
  return { state, status: renderSimPodStatus(state) };
}
