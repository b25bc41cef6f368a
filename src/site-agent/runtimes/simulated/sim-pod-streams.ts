import type { Duplex, Readable } from 'node:stream';
import type { Timers } from '../../../common/timers.js';
import {
  SiteStreamError,
  type PodStreams,
  type PodStreamTarget,
  type SiteAttachOptions,
  type SiteExecOptions,
  type SiteLogOptions,
  type SiteStreamIo,
} from '../../../site-api/pod-streams.js';
import { simContainerRunning, simLogRunEnd, simLogRunOf } from './sim-container-log.js';
import { simFirstLineSince, simLinesAt } from './sim-log.js';
import { simLogStream } from './sim-log-stream.js';
import type { SimOptions } from './sim-options.js';
import type { SimPodState } from './sim-pod.js';

export interface SimPodStreamsOptions {
  readonly timers: Timers;
  readonly sim: SimOptions;
  /** The state of the pod `target` names, undefined unless the runtime runs that very pod (its uid). */
  readonly lookup: (target: PodStreamTarget) => SimPodState | undefined;
}

/**
 * The simulated runtime's pod streams: logs are generated (`SimOptions.log…`, see sim-log.ts)
 * and honour every `kubectl logs` option as kubelet does — `tailLines` then `since…` pick
 * the first line, `timestamps` prefixes RFC 3339 times, `limitBytes` cuts, `follow` goes on
 * at the configured rate until the container ends, `previous` serves the run before a
 * restart. Exec, attach and port-forward have nothing to reach: after kubelet's checks (pod
 * not found, container not running) they are refused with a 400 naming the site.
 */
export class SimPodStreams implements PodStreams {
  constructor(private readonly options: SimPodStreamsOptions) {}

  exec(target: PodStreamTarget, _options: SiteExecOptions, _io: SiteStreamIo): Promise<number> {
    return Promise.reject(this.refusal(target, 'exec'));
  }

  attach(target: PodStreamTarget, _options: SiteAttachOptions, _io: SiteStreamIo): Promise<void> {
    return Promise.reject(this.refusal(target, 'attach'));
  }

  portForward(target: PodStreamTarget): Promise<Duplex> {
    return Promise.reject(this.refusal(target, 'port-forward'));
  }

  logs(target: PodStreamTarget, options: SiteLogOptions): Promise<Readable> {
    const { timers, sim } = this.options;
    const state = this.options.lookup(target);
    const run = simLogRunOf(state, target.name, target.container, options.previous);
    if (run instanceof SiteStreamError) return Promise.reject(run);
    const shape = { lines: sim.logLines, linesPerSecond: sim.logLinesPerSecond };
    const now = timers.now();
    const written = simLinesAt(run, shape, now);
    let first = options.tailLines === undefined ? 1 : Math.max(1, written - options.tailLines + 1);
    const since = options.sinceTime !== undefined ? Date.parse(options.sinceTime) : options.sinceSeconds !== undefined ? now - options.sinceSeconds * 1000 : undefined;
    if (since !== undefined && !Number.isNaN(since)) first = Math.max(first, simFirstLineSince(run, shape, since));
    const follow = options.follow && run.finishedAt === undefined ? () => simLogRunEnd(this.options.lookup(target), target.container, run, timers.now()) : undefined;
    return Promise.resolve(
      simLogStream({
        timers,
        run,
        shape,
        template: sim.logTemplate,
        fields: { pod: target.name, namespace: state?.facts.namespace ?? '', container: target.container, restart: run.restart },
        first,
        timestamps: options.timestamps,
        ...(options.limitBytes === undefined ? {} : { limitBytes: options.limitBytes }),
        ...(follow === undefined ? {} : { follow }),
      }),
    );
  }

  /** kubelet's answer when the pod or container is not there; else: nothing to reach on a simulated site. */
  private refusal(target: PodStreamTarget, what: 'exec' | 'attach' | 'port-forward'): SiteStreamError {
    const state = this.options.lookup(target);
    if (state === undefined || state.stage.kind === 'Stopped') return SiteStreamError.podNotFound(target.name, state?.facts.namespace ?? target.cluster.namespace);
    if (what !== 'port-forward' && !simContainerRunning(state, target.container)) return SiteStreamError.containerNotFound(target.container);
    return new SiteStreamError(400, `${what} is not available on simulated site ${JSON.stringify(target.site)}: its pods are simulated; run the site with --runtime runc`);
  }
}
