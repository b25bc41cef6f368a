import type { Logger } from '../observability/logger.js';
import type { HeartbeatResponse } from '../site-api/site-api-types.js';
import type { Timers } from '../common/timers.js';

/** What a heartbeat request is given: it must end (settle) once `signal` aborts. */
export interface HeartbeatRequestOptions {
  readonly signal: AbortSignal;
  /** The same bound as a timeout, for transports that take one (the socket's). */
  readonly timeoutMs: number;
}

export interface HeartbeatLoopOptions {
  readonly client: { heartbeat(sites: readonly string[], options: HeartbeatRequestOptions): Promise<HeartbeatResponse> };
  readonly sites: readonly string[];
  readonly intervalMs: number;
  readonly timers: Timers;
  readonly logger: Logger;
  /** Told when a heartbeat succeeds after one or more failed: the link or the control plane is back. */
  readonly onRecovered?: () => void;
}

export interface HeartbeatLoop {
  /** Settles after the first heartbeat (resolved even when it failed: the loop goes on). */
  readonly first: Promise<void>;
  stop(): void;
}

/**
 * Pure: a heartbeat request's bound, half the interval (but 1 s at least, and never more than
 * the interval): a hung one ends before the next beat is due.
 */
export function heartbeatTimeoutMs(intervalMs: number): number {
  return Math.min(intervalMs, Math.max(1000, Math.floor(intervalMs / 2)));
}

/**
 * Pure: the interval for a lease of `leaseMs`: at most a quarter of it, so that two beats lost
 * in a row, even one that hangs to its timeout, never expire the lease (3 intervals + half an
 * interval = 0.875 of the lease; docs/SITE-API.md). Never below 1 s.
 */
export function heartbeatIntervalMs(intervalMs: number, leaseMs: number): number {
  return leaseMs / 4 < intervalMs ? Math.max(1000, Math.floor(leaseMs / 4)) : intervalMs;
}

/** Pure: the interval while heartbeats fail: a quarter of the interval (1 s at least). */
export function failingIntervalMs(intervalMs: number): number {
  return Math.max(1000, Math.floor(intervalMs / 4));
}

/**
 * One heartbeat request for all the agent's sites at once, on a steady cadence: a beat every
 * `intervalMs` from the start of the previous one, whatever became of it. Each request is
 * aborted after half an interval (heartbeatTimeoutMs), so one that hangs on a dead connection
 * never delays the next. While they fail, beats come every quarter interval, so the agent
 * notices within seconds that the link or the control plane is back (`onRecovered`). When the
 * server's lease is shorter than four intervals the interval shrinks to a quarter of it. Failures are logged and the next beat comes on schedule.
 */
export function startHeartbeats(options: HeartbeatLoopOptions): HeartbeatLoop {
  const { logger, timers } = options;
  let intervalMs = options.intervalMs;
  let cancel: (() => void) | undefined;
  let stopped = false;
  let failing = false;
  let inFlight: AbortController | undefined;

  const request = async (): Promise<void> => {
    const controller = new AbortController();
    inFlight = controller;
    const timeoutMs = heartbeatTimeoutMs(intervalMs);
    const cancelTimeout = timers.schedule(() => controller.abort(new Error(`heartbeat timed out after ${timeoutMs} ms`)), timeoutMs);
    try {
      const answer = await options.client.heartbeat(options.sites, { signal: controller.signal, timeoutMs });
      const recovered = failing;
      failing = false;
      if (recovered) {
        logger.info('heartbeats succeed again');
        options.onRecovered?.();
      }
      const lease = typeof answer.leaseSeconds === 'number' ? answer.leaseSeconds * 1000 : Infinity;
      const next = heartbeatIntervalMs(intervalMs, lease);
      if (next !== intervalMs) {
        intervalMs = next;
        logger.info({ leaseSeconds: answer.leaseSeconds, intervalMs }, 'heartbeat interval shortened to a quarter of the lease');
      }
    } catch (error) {
      if (!failing) logger.warn({ err: error }, 'heartbeat failed');
      failing = true;
    } finally {
      cancelTimeout();
      if (inFlight === controller) inFlight = undefined;
    }
  };

  const beat = (): Promise<void> => {
    // The next beat is due an interval after this one started, not after it ended;
    // while they fail, a quarter of one, so a link that is back is noticed within seconds.
    if (!stopped) cancel = timers.schedule(() => void beat(), failing ? failingIntervalMs(intervalMs) : intervalMs);
    inFlight?.abort(new Error('the next heartbeat is due'));
    return request();
  };

  const first = beat();
  return {
    first,
    stop() {
      stopped = true;
      cancel?.();
      inFlight?.abort(new Error('the agent stops'));
    },
  };
}
