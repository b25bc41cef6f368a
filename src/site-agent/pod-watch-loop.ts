import type { Logger } from '../observability/logger.js';
import { podKeyOf } from './pod-key.js';
import type { PodRuntime } from './pod-runtime.js';
import { retryDelayMs, sleep } from './retry-delay.js';
import { SiteApiError } from './site-api-error.js';
import type { PodWatchEvent } from '../site-api/site-api-types.js';
import type { Timers } from '../common/timers.js';

export interface PodWatchLoopOptions {
  readonly client: { watchPods(resourceVersion: string | undefined, signal: AbortSignal): Promise<AsyncIterable<PodWatchEvent>> };
  readonly runtime: PodRuntime;
  /** Drops reports still waiting for a pod that is gone. */
  readonly forget: (key: string) => void;
  readonly timers: Timers;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  /**
   * Given the loop's restart: it ends the open stream and opens a new one at once, from the last
   * resourceVersion. The agent calls it when its heartbeats succeed again after failing: a stream
   * that was open across a silently cut link may be stuck on a dead connection (TCP retransmits
   * back off to minutes) while the control plane marked the site's pods not Ready.
   */
  readonly restartOn?: (restart: () => void) => void;
  readonly random?: () => number;
  /** The watch opened (again): the link to the control plane is up. */
  readonly onOpen?: () => void;
}

/**
 * The longest wait between the pod watch's reconnects: a site notices a control plane (or a
 * link) that came back within this long (plus a fifth), so its pods' statuses are re-asserted
 * within seconds of the link's return (the goal: kubectl shows them Ready again within 5 s).
 * One watch per agent, so the reconnects cost the control plane one TLS handshake per agent
 * every few seconds while it is down.
 */
const WATCH_RETRY_MAX_MS = 3000;

/** An in-stream ERROR event, or a 410 answer: the resource version is too old. */
class Expired extends Error {}

/**
 * Follows `GET /api/sites/v1/pods?watch=1` until `signal` aborts, feeding the runtime:
 * ADDED / MODIFIED apply the pod, DELETED removes it. A stream that ends is resumed from the
 * last resourceVersion seen (BOOKMARKs included); an expired version (410, or an ERROR event
 * with code 410) relists from scratch, and pods the relist does not bring back are dropped
 * at its first BOOKMARK; failures reconnect with back-off (at most {@link WATCH_RETRY_MAX_MS}),
 * and each open tells `onOpen` (the agent's status reports waiting out a back-off go at once).
 * Resolves when aborted.
 */
export async function runPodWatch(options: PodWatchLoopOptions): Promise<void> {
  const { runtime, logger, signal } = options;
  const random = options.random ?? Math.random;
  let resourceVersion: string | undefined;
  /** Pods known before a relist and not yet seen in it. */
  let unconfirmed: Set<string> | undefined;
  let attempt = 0;
  /** The stream began with a full list, whose end the first BOOKMARK marks. */
  let listing = false;

  const handle = (event: PodWatchEvent): void => {
    if (event.type === 'ERROR') {
      const status = event.object as unknown as { code?: number; message?: string };
      if (status.code === 410) throw new Expired(status.message ?? 'expired');
      throw new Error(`the pod watch sent an error: ${status.message ?? JSON.stringify(event.object)}`);
    }
    const rv = event.object.metadata?.resourceVersion;
    if (rv !== undefined && rv !== '') resourceVersion = rv;
    if (event.type === 'BOOKMARK') {
      if (listing) {
        listing = false;
        runtime.listed?.();
      }
      if (unconfirmed !== undefined) {
        for (const key of unconfirmed) {
          runtime.remove(key);
          options.forget(key);
        }
        logger.info({ dropped: unconfirmed.size }, 'relist complete');
        unconfirmed = undefined;
      }
      return;
    }
    if (event.cluster === undefined) return void logger.warn({ type: event.type }, 'pod watch event without a cluster; ignored');
    const key = podKeyOf(event.cluster, event.object.metadata.name ?? '');
    if (event.type === 'DELETED') {
      runtime.remove(key, event.object.metadata.uid);
      options.forget(key);
      return;
    }
    unconfirmed?.delete(key);
    runtime.apply(event.cluster, event.object);
  };

  let current: AbortController | undefined;
  options.restartOn?.(() => current?.abort(new Error('the pod watch restarts')));
  while (!signal.aborted) {
    let received = 0;
    const stream = new AbortController();
    const end = (): void => stream.abort(signal.reason);
    signal.addEventListener('abort', end, { once: true });
    current = stream;
    try {
      listing = resourceVersion === undefined;
      const events = await options.client.watchPods(resourceVersion, stream.signal);
      logger.debug({ resourceVersion }, 'pod watch open');
      options.onOpen?.();
      for await (const event of events) {
        received++;
        attempt = 0;
        handle(event);
      }
      if (received > 0) continue;
      attempt++;
    } catch (error) {
      if (signal.aborted) break;
      if (stream.signal.aborted) {
        logger.info({ resourceVersion }, 'pod watch restarted: the control plane answers again');
        attempt = 0;
        continue;
      }
      if (error instanceof Expired || (error instanceof SiteApiError && error.status === 410)) {
        logger.info({ resourceVersion }, 'pod watch expired; relisting');
        resourceVersion = undefined;
        unconfirmed = new Set(runtime.keys());
        continue;
      }
      attempt++;
      logger.warn({ err: error, attempt }, 'pod watch failed; reconnecting');
    } finally {
      signal.removeEventListener('abort', end);
      current = undefined;
    }
    if (stream.signal.aborted && !signal.aborted) continue;
    await sleep(options.timers.schedule, retryDelayMs(attempt, random, WATCH_RETRY_MAX_MS), signal);
  }
}
