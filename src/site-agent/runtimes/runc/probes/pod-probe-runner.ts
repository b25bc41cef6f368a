import type { Timers } from '../../../../common/timers.js';
import type { Container } from '../../../../api/pod-spec-types.js';
import type { PodEvents } from '../pod-worker/pod-events.js';
import type { RuncSiteParts } from '../pod-parts.js';
import type { ContainerRecord } from '../../kubelet/index.js';
import type { ContainerProbes } from './probe-state.js';
import { runProbe } from './prober.js';

/** What the probes of one pod run against. */
export interface ProbeContext {
  readonly site: RuncSiteParts;
  readonly timers: Timers;
  readonly events: PodEvents;
  readonly podIP: string;
  readonly graceMs: number;
  /** The running container `name`: its spec, runc id and status record; undefined when it does not run. */
  running(name: string): { readonly container: Container; readonly id: string; readonly record: ContainerRecord | undefined } | undefined;
  /** The tracker of `name` is still the one the probe ran for (the container was not restarted meanwhile). */
  current(name: string, tracker: ContainerProbes): boolean;
}

/**
 * Runs the probes that are due and applies their results: readiness and startup to the
 * container's status record, a liveness or startup failure kills the container (SIGTERM,
 * SIGKILL after the grace period) for its restart policy to decide. True when a record's
 * readiness changed.
 */
export async function runDueProbes(probes: ReadonlyMap<string, ContainerProbes>, context: ProbeContext): Promise<boolean> {
  const { site, timers, events } = context;
  const runs: Promise<void>[] = [];
  let changed = false;
  for (const [name, tracker] of probes) {
    const running = context.running(name);
    if (running === undefined) continue;
    const { container, id } = running;
    for (const due of tracker.due(timers.now())) {
      const target = { podIP: context.podIP, container, dial: (host: string, port: number, timeoutMs: number) => site.broker.dial(host, port, timeoutMs), exec: (command: readonly string[], timeoutMs: number) => site.containers.exec(id, command, timeoutMs) };
      runs.push(
        runProbe(due.probe, due.timeoutMs, target).then(async (result) => {
          if (!context.current(name, tracker)) return;
          const report = tracker.report(due.kind, timers.now(), result);
          if (report.event !== undefined) events.record('Warning', report.event.reason, report.event.message);
          const record = running.record;
          if (record !== undefined && record.current.kind === 'running') {
            if (record.ready !== tracker.ready || record.started !== tracker.started) changed = true;
            record.ready = tracker.ready;
            record.started = tracker.started;
          }
          if (report.kill !== undefined) {
            events.record('Normal', 'Killing', `${report.kill.message}, will be restarted`);
            await site.containers.kill(id, 'TERM').catch(() => undefined);
            timers.schedule(() => void site.containers.kill(id, 'KILL', true).catch(() => undefined), context.graceMs);
          }
        }),
      );
    }
  }
  await Promise.all(runs);
  return changed;
}
