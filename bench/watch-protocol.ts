/** Messages between the watch fan-out benchmark and its client process (watch-clients.ts). */

/** Where to send requests: a base URL, a path with its query, the CA to trust, headers. */
export interface Target {
  readonly url: string;
  readonly path: string;
  readonly ca: string;
  readonly headers: Record<string, string>;
}

export type ParentMessage =
  /**
   * Open `count` watches of `target` (each its own keep-alive socket), then answer `opened`;
   * their events are expected to carry sequence numbers 0…expected-1.
   */
  | { readonly type: 'open'; readonly target: Target; readonly count: number; readonly expected: number; readonly warmup: number }
  /**
   * POST `total` bodies to `target` at `rate` per second; in each body `{seq}` is the write's
   * number (0…total-1) and `{sent}` the send time (ms on the machine's monotonic clock).
   */
  | { readonly type: 'write'; readonly target: Target; readonly body: string; readonly rate: number; readonly total: number; readonly warmup: number }
  /** Wait until every watch has every expected event (or `timeoutMs`), answer `result`, close the watches. */
  | { readonly type: 'collect'; readonly timeoutMs: number };

export interface DeliveryResult {
  readonly type: 'result';
  readonly watchers: number;
  /** Events received that carried a sequence number, across all watches (duplicates excluded). */
  readonly received: number;
  /** Events (watch × sequence) never received. */
  readonly lost: number;
  readonly duplicates: number;
  /** Watches that ended or failed before collection finished. */
  readonly closedEarly: number;
  /** receive − send over every received event after the warm-up (sequence ≥ warmup), in ms. */
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  /** The same over the warm-up's events (sequence < warmup), reported apart; NaN without a warm-up. */
  readonly warmupP99: number;
  /** One received line, as the server wrote it (the bare baseline pushes lines of its shape). */
  readonly sample: string;
  /** CPU the client process used since the watches opened, in seconds. */
  readonly clientCpuSeconds: number;
}

export type ChildMessage =
  | { readonly type: 'progress'; readonly opened: number }
  | { readonly type: 'opened'; readonly count: number }
  /** POST→201 of the writes after the warm-up. */
  | { readonly type: 'written'; readonly ackP50: number; readonly ackP99: number; readonly errors: number; readonly seconds: number }
  | DeliveryResult
  | { readonly type: 'failed'; readonly message: string };
