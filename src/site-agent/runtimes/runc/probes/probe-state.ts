import type { Container, Probe } from '../../../../api/pod-spec-types.js';

export type ProbeKind = 'startup' | 'liveness' | 'readiness';

/** A probe's timing with kubelet's defaults (0 s delay, every 10 s, 1 s timeout, thresholds 1 and 3), in ms. */
export interface ProbeTiming {
  readonly initialDelayMs: number;
  readonly periodMs: number;
  readonly timeoutMs: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
}

export function probeTiming(probe: Probe): ProbeTiming {
  const positive = (value: number | undefined, fallback: number): number => (value !== undefined && value > 0 ? value : fallback);
  return {
    initialDelayMs: Math.max(0, probe.initialDelaySeconds ?? 0) * 1000,
    periodMs: positive(probe.periodSeconds, 10) * 1000,
    timeoutMs: positive(probe.timeoutSeconds, 1) * 1000,
    successThreshold: positive(probe.successThreshold, 1),
    failureThreshold: positive(probe.failureThreshold, 3),
  };
}

/**
 * One probe's outcome, as kubelet's probers return it: `warning` (an HTTP redirect not
 * followed) counts as success; `error` (the probe could not be run, e.g. a named port the
 * container does not declare) is reported and thrown away.
 */
export type ProbeResult =
  | { readonly outcome: 'success'; readonly output?: string }
  | { readonly outcome: 'warning' | 'failure' | 'error'; readonly output: string };

/** An Event for the container, worded as kubelet's prober words it. */
interface ProbeEvent {
  readonly type: 'Warning';
  readonly reason: 'Unhealthy';
  readonly message: string;
}

export interface ProbeReport {
  readonly event?: ProbeEvent;
  /**
   * The container failed its liveness or startup probe `failureThreshold` times: kill it
   * (and restart it as its pod's restartPolicy says). `message` is kubelet's
   * (`Container app failed liveness probe`; kubelet adds `, will be restarted` to its Killing
   * Event when it restarts). Probing stops: a new container gets a new tracker.
   */
  readonly kill?: { readonly probe: 'liveness' | 'startup'; readonly message: string };
  /** `started` or `ready` changed with this report. */
  readonly changed: boolean;
}

/** A probe to run now: the runtime runs it (see prober.ts) and reports the result with {@link ContainerProbes.report}. */
export interface DueProbe {
  readonly kind: ProbeKind;
  readonly probe: Probe;
  readonly timeoutMs: number;
}

type Verdict = 'success' | 'failure' | 'unknown';

interface Worker {
  readonly kind: ProbeKind;
  readonly probe: Probe;
  readonly timing: ProbeTiming;
  /** The first time the probe may run: the container's start plus the initial delay. */
  readonly anchor: number;
  /** When it runs next; undefined while it waits for the startup probe, is in flight, or is done. */
  nextAt: number | undefined;
  /** When the probe in flight was due. */
  inFlightSince: number | undefined;
  verdict: Verdict;
  lastResult: 'success' | 'failure' | undefined;
  run: number;
  done: boolean;
}

const TITLE: Record<ProbeKind, string> = { startup: 'Startup', liveness: 'Liveness', readiness: 'Readiness' };

/**
 * The probes of one running container instance, as kubelet's prober workers run them, with
 * time passed in (no timers here: the runtime asks {@link nextDueAt} and wakes then).
 * - Each probe first runs `initialDelaySeconds` after the container started, then every
 *   `periodSeconds` (a probe slower than its period runs again as soon as it reports).
 * - Liveness and readiness wait until the startup probe has succeeded; the startup probe
 *   stops once it has. Readiness runs at once when it may (kubelet triggers it manually while
 *   it has no result); liveness keeps its period's rhythm.
 * - A result counts once the same result came `successThreshold` (`failureThreshold`) times
 *   in a row. Readiness is false until its first success; liveness starts as success.
 * - The container is `started` once its startup probe succeeded (at once without one) and
 *   `ready` when started and its readiness probe succeeded (or it has none).
 */
export class ContainerProbes {
  private readonly workers: Worker[] = [];

  /**
   * Probes of a container instance that started at `startedAt`. With `resumed` (an agent
   * restart found the container running), probing picks up where the last agent left it
   * instead of starting over: a container that had passed its startup probe keeps that and its
   * readiness until its probes say otherwise, and liveness keeps its period's rhythm.
   */
  constructor(
    private readonly container: Pick<Container, 'name' | 'startupProbe' | 'livenessProbe' | 'readinessProbe'>,
    startedAt: number,
    resumed?: { readonly at: number; readonly started: boolean; readonly ready: boolean },
  ) {
    const add = (kind: ProbeKind, probe: Probe | undefined): void => {
      if (probe === undefined) return;
      const timing = probeTiming(probe);
      const anchor = startedAt + timing.initialDelayMs;
      const verdict: Verdict = kind === 'liveness' ? 'success' : kind === 'readiness' ? 'failure' : 'unknown';
      this.workers.push({ kind, probe, timing, anchor, nextAt: undefined, inFlightSince: undefined, verdict, lastResult: undefined, run: 0, done: false });
    };
    add('startup', container.startupProbe);
    add('liveness', container.livenessProbe);
    add('readiness', container.readinessProbe);
    for (const worker of this.workers) if (worker.kind === 'startup' || this.started) worker.nextAt = worker.anchor;
    if (resumed?.started === true) {
      const startup = this.worker('startup');
      if (startup !== undefined) {
        startup.verdict = 'success';
        startup.done = true;
        startup.nextAt = undefined;
      }
      const readiness = this.worker('readiness');
      if (readiness !== undefined) readiness.verdict = resumed.ready ? 'success' : 'failure';
      this.startAfterStartup(resumed.at);
    }
  }

  get started(): boolean {
    const startup = this.worker('startup');
    return startup === undefined || startup.verdict === 'success';
  }

  get ready(): boolean {
    const readiness = this.worker('readiness');
    return this.started && (readiness === undefined || readiness.verdict === 'success');
  }

  /** The earliest time a probe is due, or undefined when none will be without a report first. */
  nextDueAt(): number | undefined {
    let next: number | undefined;
    for (const worker of this.workers) if (worker.nextAt !== undefined && (next === undefined || worker.nextAt < next)) next = worker.nextAt;
    return next;
  }

  /** The probes due at `now`; each is in flight until its result is reported. */
  due(now: number): DueProbe[] {
    const due: DueProbe[] = [];
    for (const worker of this.workers) {
      if (worker.nextAt === undefined || worker.nextAt > now) continue;
      worker.inFlightSince = worker.nextAt;
      worker.nextAt = undefined;
      due.push({ kind: worker.kind, probe: worker.probe, timeoutMs: worker.timing.timeoutMs });
    }
    return due;
  }

  /** Records the result of a probe {@link due} returned, finished at `now`. */
  report(kind: ProbeKind, now: number, result: ProbeResult): ProbeReport {
    const worker = this.worker(kind);
    if (worker === undefined || worker.done || worker.inFlightSince === undefined) return { changed: false };
    const before = { started: this.started, ready: this.ready };
    worker.nextAt = Math.max(worker.inFlightSince + worker.timing.periodMs, now);
    worker.inFlightSince = undefined;
    const event = probeEvent(kind, result);
    if (result.outcome === 'error') return { ...(event === undefined ? {} : { event }), changed: false };
    const outcome = result.outcome === 'failure' ? 'failure' : 'success';
    if (outcome === worker.lastResult) worker.run++;
    else {
      worker.lastResult = outcome;
      worker.run = 1;
    }
    let kill: ProbeReport['kill'];
    const threshold = outcome === 'failure' ? worker.timing.failureThreshold : worker.timing.successThreshold;
    if (worker.run >= threshold) {
      worker.verdict = outcome;
      if (outcome === 'failure' && kind !== 'readiness') {
        kill = { probe: kind, message: `Container ${this.container.name ?? ''} failed ${kind} probe` };
        for (const each of this.workers) {
          each.done = true;
          each.nextAt = undefined;
        }
      } else if (kind === 'startup' && outcome === 'success') {
        worker.done = true;
        worker.nextAt = undefined;
        this.startAfterStartup(now);
      }
    }
    const changed = before.started !== this.started || before.ready !== this.ready;
    return { ...(event === undefined ? {} : { event }), ...(kill === undefined ? {} : { kill }), changed };
  }

  private startAfterStartup(now: number): void {
    for (const worker of this.workers) {
      if (worker.kind === 'liveness') {
        const periods = Math.max(0, Math.ceil((now - worker.anchor) / worker.timing.periodMs));
        worker.nextAt = worker.anchor + periods * worker.timing.periodMs;
      } else if (worker.kind === 'readiness') worker.nextAt = Math.max(worker.anchor, now);
    }
  }

  private worker(kind: ProbeKind): Worker | undefined {
    return this.workers.find((worker) => worker.kind === kind);
  }
}

function probeEvent(kind: ProbeKind, result: ProbeResult): ProbeEvent | undefined {
  const verb = { success: undefined, warning: 'warning', failure: 'failed', error: 'errored' }[result.outcome];
  return verb === undefined ? undefined : { type: 'Warning', reason: 'Unhealthy', message: `${TITLE[kind]} probe ${verb}: ${result.output ?? ''}` };
}
