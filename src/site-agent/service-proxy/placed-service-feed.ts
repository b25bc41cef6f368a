import type { Timers } from '../../common/timers.js';
import type { Logger } from '../../observability/logger.js';
import { retryDelayMs, sleep } from '../retry-delay.js';
import type { PlacedObjects } from '../site-api-client.js';

type FeedKind = 'services' | 'endpoints';

/** How long one long poll waits on the control plane before it lists again anyway. */
const POLL_SECONDS = 30;

/** The site API calls the feed makes (a {@link SiteApiClient}'s). */
export type PlacedObjectsFetch = (kind: FeedKind, wait?: { readonly after: string; readonly timeoutSeconds: number; readonly signal?: AbortSignal }) => Promise<PlacedObjects>;

/**
 * The Services and Endpoints placed on the agent's sites, kept current by one long poll per
 * kind (`GET /objects?kind=…&after=<rv>`): the control plane answers as soon as either may
 * have changed, so a change reaches the sites' proxies within a round trip. A failed poll is
 * retried with the agent's back-off; the last lists stay in use meanwhile (a proxy keeps
 * serving what it knew). `onChange` is called after each list that differs from the last.
 */
export class PlacedServiceFeed {
  private readonly lists = new Map<FeedKind, PlacedObjects>();
  private readonly stop = new AbortController();
  private readonly loops: Promise<void>[] = [];
  private firstLists: Promise<void> | undefined;

  constructor(
    private readonly fetch: PlacedObjectsFetch,
    private readonly onChange: () => void,
    private readonly timers: Timers,
    private readonly logger: Logger,
    private readonly random: () => number = Math.random,
  ) {}

  /** The items of `kind` as last listed (empty before the first list). */
  items(kind: FeedKind): PlacedObjects['items'] {
    return this.lists.get(kind)?.items ?? [];
  }

  /** Whether both kinds have been listed once. */
  get ready(): boolean {
    return this.lists.size === 2;
  }

  /** Starts both polls; resolves once both kinds are listed (or the feed is closed). */
  start(): Promise<void> {
    this.firstLists ??= new Promise<void>((resolve) => {
      let pending = 2;
      const listed = (): void => {
        if (--pending === 0) resolve();
      };
      this.stop.signal.addEventListener('abort', () => resolve(), { once: true });
      for (const kind of ['services', 'endpoints'] as const) this.loops.push(this.follow(kind, listed));
    });
    return this.firstLists;
  }

  async close(): Promise<void> {
    this.stop.abort();
    await Promise.all(this.loops);
  }

  private async follow(kind: FeedKind, listed: () => void): Promise<void> {
    const signal = this.stop.signal;
    let failures = 0;
    let first = true;
    while (!signal.aborted) {
      const last = this.lists.get(kind);
      try {
        const next = await this.fetch(kind, last === undefined ? undefined : { after: last.resourceVersion, timeoutSeconds: POLL_SECONDS, signal });
        failures = 0;
        if (signal.aborted) return;
        this.lists.set(kind, next);
        if (first) listed();
        first = false;
        if (last === undefined || JSON.stringify(last.items) !== JSON.stringify(next.items)) this.onChange();
      } catch (error) {
        if (signal.aborted) return;
        failures++;
        const ms = retryDelayMs(failures, this.random);
        this.logger.warn({ kind, err: error instanceof Error ? error.message : String(error), retryInMs: ms }, 'following the placed Services failed; retrying');
        await sleep((fire, delay) => this.timers.schedule(fire, delay), ms, signal);
      }
    }
  }
}
