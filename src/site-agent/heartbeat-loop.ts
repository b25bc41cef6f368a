import type { Logger } from '../observability/logger.js';
import type { HeartbeatResponse } from '../site-api/site-api-types.js';
import type { Timers } from '../common/timers.js';

export interface HeartbeatLoopOptions {
  readonly client: { heartbeat(sites: readonly string[]): Promise<HeartbeatResponse> };
  readonly sites: readonly string[];
  readonly intervalMs: number;
  readonly timers: Timers;
  readonly logger: Logger;
}

export interface HeartbeatLoop {
  /** Settles after the first heartbeat (resolved even when it failed: the loop goes on). */
  readonly first: Promise<void>;
  stop(): void;
}

/**
 * One heartbeat request for all the agent's sites at once, then every `intervalMs` after the
 * previous one ended. When the server's lease is shorter than three intervals the interval
 * shrinks to a third of it, so two lost heartbeats never expire the lease. Failures are
 * logged and the next beat comes on schedule.
 */
export function startHeartbeats(options: HeartbeatLoopOptions): HeartbeatLoop {
  const { logger } = options;
  let intervalMs = options.intervalMs;
  let cancel: (() => void) | undefined;
  let stopped = false;
  let failing = false;

  const beat = async (): Promise<void> => {
    try {
      const answer = await options.client.heartbeat(options.sites);
      if (failing) logger.info('heartbeats succeed again');
      failing = false;
      const lease = typeof answer.leaseSeconds === 'number' ? answer.leaseSeconds * 1000 : Infinity;
      if (lease / 3 < intervalMs) {
        intervalMs = Math.max(1000, Math.floor(lease / 3));
        logger.info({ leaseSeconds: answer.leaseSeconds, intervalMs }, 'heartbeat interval shortened to a third of the lease');
      }
    } catch (error) {
      if (!failing) logger.warn({ err: error }, 'heartbeat failed');
      failing = true;
    }
    if (!stopped) cancel = options.timers.schedule(() => void beat(), intervalMs);
  };

  const first = beat();
  return {
    first,
    stop() {
      stopped = true;
      cancel?.();
    },
  };
}
