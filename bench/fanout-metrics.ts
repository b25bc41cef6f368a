/**
 * The control plane's own account of a watch fan-out, from the Prometheus text it serves at
 * /metrics: how long its watch cache took to offer new events to every watch once (a pass:
 * an event written during a pass reaches each watch within about one), and how many events
 * each write to a watch carried.
 */

const PASS = 'edgeplane_watch_cache_fanout_pass_duration_seconds';

/** Counters of one resource's watch cache at one moment. */
export interface FanOutTotals {
  readonly passes: number;
  readonly seconds: number;
  /** Cumulative pass counts by upper bound (s), ascending; +Inf last. */
  readonly buckets: ReadonlyArray<readonly [number, number]>;
  readonly flushes: number;
  readonly events: number;
}

/** Samples of the exposition: name, labels, value. */
function samples(text: string): Array<{ name: string; labels: Map<string, string>; value: number }> {
  const out: Array<{ name: string; labels: Map<string, string>; value: number }> = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null) continue;
    const labels = new Map<string, string>();
    for (const l of (m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels.set(l[1] as string, l[2] as string);
    out.push({ name: m[1] as string, labels, value: Number(m[3]) });
  }
  return out;
}

/** The fan-out counters of the watch cache of `group`/`resource` in `text` (zero when it has none yet). */
export function fanOutTotals(text: string, group: string, resource: string): FanOutTotals {
  let passes = 0;
  let seconds = 0;
  let flushes = 0;
  let events = 0;
  const buckets: Array<[number, number]> = [];
  for (const s of samples(text)) {
    if (s.labels.get('group') !== group || s.labels.get('resource') !== resource) continue;
    if (s.name === `${PASS}_count`) passes = s.value;
    else if (s.name === `${PASS}_sum`) seconds = s.value;
    else if (s.name === `${PASS}_bucket`) buckets.push([s.labels.get('le') === '+Inf' ? Number.POSITIVE_INFINITY : Number(s.labels.get('le')), s.value]);
    else if (s.name === 'edgeplane_watch_cache_flushes_total') flushes = s.value;
    else if (s.name === 'edgeplane_watch_events_total') events = s.value;
  }
  return { passes, seconds, buckets: buckets.sort((a, b) => a[0] - b[0]), flushes, events };
}

export interface FanOutFigures {
  readonly passes: number;
  readonly meanMs: number;
  /** Upper bounds (ms) of the buckets holding the 50th and 99th percentile pass. */
  readonly p50AtMostMs: number;
  readonly p99AtMostMs: number;
  readonly eventsPerWrite: number;
}

/** What happened between two readings. */
export function fanOutBetween(before: FanOutTotals, after: FanOutTotals): FanOutFigures {
  const passes = after.passes - before.passes;
  const earlier = new Map(before.buckets);
  const counts = after.buckets.map(([le, n]) => [le, n - (earlier.get(le) ?? 0)] as const);
  const bound = (q: number): number => (passes === 0 ? Number.NaN : (counts.find(([, n]) => n >= q * passes)?.[0] ?? Number.NaN) * 1000);
  return {
    passes,
    // No pass: 0 / 0, NaN.
    meanMs: ((after.seconds - before.seconds) / passes) * 1000,
    p50AtMostMs: bound(0.5),
    p99AtMostMs: bound(0.99),
    eventsPerWrite: (after.events - before.events) / (after.flushes - before.flushes),
  };
}
