import type { BareServer } from './bare-server.js';
import { type FanOutFigures, type FanOutTotals, fanOutBetween, fanOutTotals } from './fanout-metrics.js';
import { type GcActivity, withGcActivity } from './gc-recorder.js';
import { fmtMs, nowMs, percentile, progress, withCpu, type Row } from './stats.js';
import { pushAtRate, WatchClients } from './watch-fanout.js';
import type { DeliveryResult, Target } from './watch-protocol.js';

/** The control plane under test: its URL, CA, token headers, and a request helper. */
export interface WatchSubject {
  readonly url: string;
  readonly ca: string;
  readonly headers: Record<string, string>;
  /** The list's resourceVersion of `path` (a collection), to watch from. */
  listRevision(path: string): Promise<string>;
  /** Its /metrics text. */
  scrapeMetrics(): Promise<string>;
}

export interface FanoutOptions {
  readonly watchers: number;
  readonly rate: number;
  readonly seconds: number;
  /** Seconds of writes before the measured ones: delivered and checked for loss, but their latency is reported apart. */
  readonly warmupSeconds: number;
  readonly bookmarks: boolean;
  /** The collection watched and written to. */
  readonly path: string;
  /** A ConfigMap body with `{seq}` (its number, also in its name) and `{sent}` (the send time). */
  readonly body: string;
}

interface FanoutFigures {
  readonly delivery: DeliveryResult;
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly ack?: { readonly p50: number; readonly p99: number; readonly errors: number };
  /** The bare server's pushes: how late each was on its schedule (ms, sorted). */
  readonly lags?: readonly number[];
  /** The control plane's watch cache passes over the writes (warm-up included), from its metrics. */
  readonly passes?: FanOutFigures;
  /** This process's GCs (the control plane's, or the bare server's) during the writes and deliveries. */
  readonly gc: GcActivity;
}

/** How long the watch clients wait for the last events before counting the missing ones as lost. */
const COLLECT_TIMEOUT_MS = 30_000;

/**
 * Watches of one collection in a client process, while a second client process creates
 * ConfigMaps at the rate (a writer sharing the watches' event loop would send late and read
 * its answers late whenever that loop is busy decoding events).
 */
async function vk8sFanout(s: WatchSubject, o: FanoutOptions, total: number, warmup: number): Promise<FanoutFigures> {
  const rv = await s.listRevision(o.path);
  const clients = WatchClients.start();
  const writer = WatchClients.start();
  try {
    progress(`vK8s: opening ${o.watchers} watches of one collection (resourceVersion ${rv}${o.bookmarks ? ', bookmarks' : ''}) from a client process`);
    const query = `watch=1&resourceVersion=${rv}&timeoutSeconds=3600${o.bookmarks ? '&allowWatchBookmarks=true' : ''}`;
    await clients.open({ url: s.url, ca: s.ca, headers: s.headers, path: `${o.path}?${query}` }, o.watchers, total, warmup);
    progress(`vK8s: ${total} creates at ${o.rate}/s (send time in each object; the first ${warmup} are the warm-up), delivered to ${o.watchers} watches`);
    const target: Target = { url: s.url, ca: s.ca, headers: s.headers, path: o.path };
    const totals = async (): Promise<FanOutTotals> => fanOutTotals(await s.scrapeMetrics(), '', 'configmaps');
    const before = await totals();
    const { result: measured, gc } = await withGcActivity(() =>
      withCpu(async () => {
        const written = await writer.write(target, o.body, o.rate, total, warmup);
        return { written, delivery: await clients.collect(COLLECT_TIMEOUT_MS) };
      }),
    );
    const { result, cpuSeconds, wallSeconds } = measured;
    const { ackP50, ackP99, errors } = result.written;
    const passes = fanOutBetween(before, await totals());
    return { delivery: result.delivery, cpuSeconds, wallSeconds, ack: { p50: ackP50, p99: ackP99, errors }, gc, passes };
  } finally {
    clients.close();
    writer.close();
  }
}

/** The same watches on the bare server, which pushes lines shaped like the vK8s events at the rate. */
async function bareFanout(bare: BareServer, ca: string, o: FanoutOptions, total: number, warmup: number, sample: string): Promise<FanoutFigures> {
  const template = sample.replace(/"seq":"\d+"/, '"seq":"{seq}"').replace(/"sent":"[\d.]+"/, '"sent":"{sent}"').replace(/"ev-\d+"/, '"ev-{seq}"');
  const clients = WatchClients.start();
  try {
    progress(`bare: opening ${o.watchers} watches from a client process`);
    await clients.open({ url: bare.url, ca, headers: {}, path: '/watch' }, o.watchers, total, warmup);
    progress(`bare: ${total} lines (${template.length} bytes) at ${o.rate}/s to ${bare.watchers} chunked responses`);
    const { result: measured, gc } = await withGcActivity(() =>
      withCpu(async () => {
        const lags = await pushAtRate((seq, sent) => bare.push(`${template.replaceAll('{seq}', String(seq)).replace('{sent}', sent.toFixed(3))}\n`), nowMs, o.rate, total, warmup);
        return { lags, delivery: await clients.collect(COLLECT_TIMEOUT_MS) };
      }),
    );
    const { result, cpuSeconds, wallSeconds } = measured;
    return { delivery: result.delivery, lags: result.lags, cpuSeconds, wallSeconds, gc };
  } finally {
    clients.close();
  }
}

const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
const passFigure = (p: FanOutFigures | undefined): string =>
  p === undefined ? 'n/a' : `p50 ≤ ${p.p50AtMostMs} ms, p99 ≤ ${p.p99AtMostMs} ms, mean ${fmtMs(p.meanMs)} (${p.passes} passes)`;
/** A major GC during the watch window shows as a latency spike of 100–170 ms here: its incremental marking runs on the loop (both cores are busy). */
const gcSummary = (gc: GcActivity): string => `${gc.major} major (${fmtMs(gc.majorPauseMs)}), ${gc.minor} minor (p99 ${fmtMs(percentile(gc.minorPausesMs, 99))})`;
const core = (f: FanoutFigures): string => `${Math.round((f.cpuSeconds / f.wallSeconds) * 100)}% of a core`;
/** CPU per event written (server) or per event received by one watch (client process). */
const perEvent = (cpuSeconds: number, events: number, unit: 'ms' | 'µs'): string => `${((cpuSeconds * (unit === 'ms' ? 1e3 : 1e6)) / events).toFixed(unit === 'ms' ? 2 : 1)} ${unit}`;

/**
 * Watch fan-out: `watchers` watches of one collection while ConfigMaps are created at `rate`
 * for `seconds`; delivery latency is receive − send (the send time is in each object), over
 * every watch and event. Then the bare server pushes lines of the same shape and size to the
 * same number of chunked responses at the same rate, measured by the same client process.
 */
export async function watchFanout(s: WatchSubject, bare: BareServer, o: FanoutOptions): Promise<{ rows: Row[]; p99: number; lost: number }> {
  const warmup = Math.round(o.rate * o.warmupSeconds);
  const total = warmup + Math.round(o.rate * o.seconds);
  const vk8s = await vk8sFanout(s, o, total, warmup);
  if (vk8s.delivery.sample === '') throw new Error('no watch event arrived from the vK8s API');
  if ((vk8s.ack?.errors ?? 0) > 0) throw new Error(`${vk8s.ack?.errors} writes failed during the fan-out`);
  const base = await bareFanout(bare, s.ca, o, total, warmup, vk8s.delivery.sample);
  const m = `watch ${o.watchers} × ${o.rate}/s${o.bookmarks ? ' (bookmarks)' : ''}`;
  const [d, b] = [vk8s.delivery, base.delivery];
  const rows: Row[] = [
    { area: 'vk8s', measure: `${m}: p50 send→event`, value: fmtMs(d.p50), baseline: `${fmtMs(b.p50)} bare push`, ratio: ratio(d.p50, b.p50) },
    { area: 'vk8s', measure: `${m}: p99 send→event`, value: fmtMs(d.p99), baseline: `${fmtMs(b.p99)} bare push`, ratio: ratio(d.p99, b.p99) },
    { area: 'vk8s', measure: `${m}: max send→event`, value: fmtMs(d.max), baseline: `${fmtMs(b.max)} bare push`, ratio: ratio(d.max, b.max) },
    {
      area: 'vk8s',
      measure: `${m}: p99 send→event of the ${o.warmupSeconds} s warm-up (not in the figures above)`,
      value: fmtMs(d.warmupP99),
      baseline: `${fmtMs(b.warmupP99)} bare push`,
      ratio: ratio(d.warmupP99, b.warmupP99),
    },
    { area: 'vk8s', measure: `${m}: events lost`, value: `${d.lost} of ${d.watchers * total} (${d.closedEarly} closed)`, baseline: `${b.lost} of ${b.watchers * total} (${b.closedEarly} closed)`, ratio: '' },
    { area: 'vk8s', measure: `${m}: server CPU`, value: core(vk8s), baseline: `${core(base)} bare`, ratio: ratio(vk8s.cpuSeconds, base.cpuSeconds) },
    { area: 'vk8s', measure: `${m}: server CPU per event`, value: perEvent(vk8s.cpuSeconds, total, 'ms'), baseline: `${perEvent(base.cpuSeconds, total, 'ms')} bare`, ratio: ratio(vk8s.cpuSeconds, base.cpuSeconds) },
    { area: 'vk8s', measure: `${m}: client process CPU`, value: `${Math.round((d.clientCpuSeconds / vk8s.wallSeconds) * 100)}% of a core`, baseline: `${Math.round((b.clientCpuSeconds / base.wallSeconds) * 100)}% bare`, ratio: '' },
    { area: 'vk8s', measure: `${m}: client CPU per event and watch`, value: perEvent(d.clientCpuSeconds, d.received, 'µs'), baseline: `${perEvent(b.clientCpuSeconds, b.received, 'µs')} bare`, ratio: ratio(d.clientCpuSeconds / d.received, b.clientCpuSeconds / b.received) },
    {
      area: 'vk8s',
      measure: `${m}: server fan-out pass over every watch (its /metrics)`,
      value: passFigure(vk8s.passes),
      baseline: 'bare: each push written to every watch at once',
      ratio: '',
    },
    { area: 'vk8s', measure: `${m}: events per write to a watch`, value: (vk8s.passes?.eventsPerWrite ?? Number.NaN).toFixed(2), baseline: '1.00 bare', ratio: '' },
    { area: 'vk8s', measure: `${m}: GCs of the server process (major: final pauses only)`, value: gcSummary(vk8s.gc), baseline: `${gcSummary(base.gc)} bare`, ratio: '' },
    {
      area: 'vk8s',
      measure: `${m}: POST→201 (part of send→event) / bare push lag (not in it)`,
      value: `p50 ${fmtMs(vk8s.ack?.p50 ?? Number.NaN)}, p99 ${fmtMs(vk8s.ack?.p99 ?? Number.NaN)}`,
      baseline: `p50 ${fmtMs(percentile(base.lags ?? [], 50))}, p99 ${fmtMs(percentile(base.lags ?? [], 99))} lag`,
      ratio: '',
    },
  ];
  return { rows, p99: d.p99, lost: d.lost };
}
