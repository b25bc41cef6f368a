import type { Container, Probe } from '../../../../api/pod-spec-types.js';
import type { Timers } from '../../../../common/timers.js';
import type { ContainerRecord } from '../../kubelet/index.js';
import { ContainerProbes, type ProbeResult } from './probe-state.js';
import { runProbe, type Dial, type ExecInContainer } from './prober.js';

/** A container whose liveness or startup probe failed `failureThreshold` times: its pod's next sync kills it. */
export interface ProbeFailure {
  readonly probe: 'liveness' | 'startup';
  /** kubelet's words (`Container app failed liveness probe`). */
  readonly message: string;
  /** The instance the probe ran against (a restarted container is not killed for its predecessor). */
  readonly instanceId: string;
}

/** A running container instance to probe. */
export interface ProbedInstance {
  readonly container: Container;
  readonly id: string;
  readonly startedAt: number;
  /** Its status record: readiness and startup results are written into it. */
  readonly record: ContainerRecord;
}

export interface PodProberOptions {
  readonly timers: Timers;
  /** Dials from the site's network (httpGet and tcpSocket probes). */
  readonly dial: Dial;
  /** Runs a command in a container instance (exec probes). */
  readonly exec: (id: string, command: readonly string[], timeoutMs: number) => ReturnType<ExecInContainer>;
  /** The pod's address now (the probes' default host). */
  readonly podIP: () => string;
  /** An `Unhealthy` Warning for the pod. */
  readonly event: (reason: string, message: string) => void;
  /** A container's readiness or startup changed, or it failed a liveness or startup probe: the pod syncs. */
  readonly changed: () => void;
}

interface Tracked {
  readonly instance: ProbedInstance;
  readonly probes: ContainerProbes;
}

/**
 * The probe workers of one pod, as kubelet's prober manager runs them beside the pod worker:
 * one tracker per running container instance that has probes, one timer for the earliest
 * probe due. Probes run outside the pod's sync (a slow probe holds nothing up). Readiness and
 * startup results go into the container's status record at once; a liveness or startup
 * failure is kept as a {@link ProbeFailure} until the pod's sync has killed the container.
 */
export class PodProber {
  private readonly tracked = new Map<string, Tracked>();
  private readonly failed = new Map<string, ProbeFailure>();
  private cancelWake: (() => void) | undefined;
  private closed = false;

  constructor(private readonly options: PodProberOptions) {}

  /** Whether the running instance `id` of `name` is probed. */
  has(name: string, id: string): boolean {
    return this.tracked.get(name)?.instance.id === id;
  }

  /**
   * Probes `instance` from now on (replacing its predecessor's probes), and sets its record's
   * `started` and `ready` from them. `resumed`: an agent restart found it running at that
   * time, its record as the last agent saved it (see {@link ContainerProbes}).
   */
  track(name: string, instance: ProbedInstance, resumedAt?: number): void {
    const { record } = instance;
    const resumed = resumedAt === undefined ? undefined : { at: resumedAt, started: record.started, ready: record.ready };
    const probes = new ContainerProbes(instance.container, instance.startedAt, resumed);
    this.tracked.set(name, { instance, probes });
    this.failed.delete(name);
    record.started = probes.started;
    record.ready = probes.ready;
    this.schedule();
  }

  /** The container's instance stopped: its probes end. */
  untrack(name: string): void {
    this.tracked.delete(name);
    this.failed.delete(name);
    this.schedule();
  }

  /** The failures not yet acted on, by container. */
  failures(): ReadonlyMap<string, ProbeFailure> {
    return this.failed;
  }

  /** The pod's sync killed the container for its failure. */
  failureHandled(name: string): void {
    this.failed.delete(name);
  }

  /** Stops probing (the pod terminates, or the agent stops). */
  close(): void {
    this.closed = true;
    this.cancelWake?.();
    this.cancelWake = undefined;
  }

  /** Arms one timer for the earliest due probe. */
  private schedule(): void {
    this.cancelWake?.();
    this.cancelWake = undefined;
    if (this.closed) return;
    let next: number | undefined;
    for (const { probes } of this.tracked.values()) {
      const at = probes.nextDueAt();
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    if (next === undefined) return;
    const { timers } = this.options;
    this.cancelWake = timers.schedule(() => void this.runDue(), Math.max(0, next - timers.now()));
  }

  private async runDue(): Promise<void> {
    const { timers } = this.options;
    let changed = false;
    const runs: Promise<void>[] = [];
    for (const [name, tracked] of this.tracked) {
      for (const due of tracked.probes.due(timers.now())) {
        runs.push(
          this.run(due.probe, due.timeoutMs, tracked).then((result) => {
            if (this.tracked.get(name) !== tracked) return;
            const report = tracked.probes.report(due.kind, timers.now(), result);
            if (report.event !== undefined) this.options.event(report.event.reason, report.event.message);
            const { record } = tracked.instance;
            if (record.current.kind === 'running' && (record.ready !== tracked.probes.ready || record.started !== tracked.probes.started)) {
              record.ready = tracked.probes.ready;
              record.started = tracked.probes.started;
              changed = true;
            }
            if (report.kill !== undefined) {
              this.failed.set(name, { ...report.kill, instanceId: tracked.instance.id });
              changed = true;
            }
          }),
        );
      }
    }
    await Promise.all(runs);
    if (this.closed) return;
    this.schedule();
    if (changed) this.options.changed();
  }

  private run(probe: Probe, timeoutMs: number, tracked: Tracked): Promise<ProbeResult> {
    const { instance } = tracked;
    return runProbe(probe, timeoutMs, {
      podIP: this.options.podIP(),
      container: instance.container,
      dial: this.options.dial,
      exec: (command, ms) => this.options.exec(instance.id, command, ms),
      timers: this.options.timers,
    });
  }
}
