import type { Logger } from '../observability/logger.js';
import type { Timers } from '../common/timers.js';
import type { PodEventReport, PodStatusResult } from '../site-api/site-api-types.js';

/** The most Events waiting to be sent; beyond, new ones are dropped (a pod in a hot loop must not grow the agent). */
const MAX_QUEUED = 1000;
const FLUSH_MS = 200;

/**
 * Sends the runtime's pod Events in batches, one request in flight, best effort as kubelet's
 * event broadcaster: a failed batch is logged and dropped (the control plane aggregates
 * repeats, and statuses, not Events, are what must arrive).
 */
export class EventSender {
  private queue: PodEventReport[] = [];
  private cancel: (() => void) | undefined;
  private sending: Promise<void> = Promise.resolve();
  private dropped = 0;

  constructor(
    private readonly post: (items: readonly PodEventReport[]) => Promise<readonly PodStatusResult[]>,
    private readonly timers: Timers,
    private readonly logger: Logger,
  ) {}

  add(report: PodEventReport): void {
    if (this.queue.length >= MAX_QUEUED) {
      this.dropped++;
      return;
    }
    this.queue.push(report);
    this.cancel ??= this.timers.schedule(() => void this.flush(), FLUSH_MS);
  }

  /** Sends what is queued now; resolves when it has been sent (or failed). */
  flush(): Promise<void> {
    this.cancel?.();
    this.cancel = undefined;
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return this.sending;
    this.sending = this.sending.then(async () => {
      try {
        const results = await this.post(batch);
        const refused = results.filter((r) => r.error !== undefined);
        if (refused.length > 0) this.logger.debug({ refused: refused.length, first: refused[0]?.error }, 'pod events refused');
      } catch (error) {
        this.logger.warn({ err: error, events: batch.length, droppedBefore: this.dropped }, 'pod events not sent; dropped');
      }
    });
    return this.sending;
  }
}
