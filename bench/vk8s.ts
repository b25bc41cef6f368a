import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { httpsRequest, type HttpsResponse } from '../src/client/https-client.js';
import { createLogger } from '../src/observability/logger.js';
import { startControlPlane } from '../src/server/control-plane.js';
import { DEFAULT_SERVER_LIMITS } from '../src/server/server-limits.js';
import { startInProcessProfiler } from './in-process-profiler.js';
import { startBareServer, type BareServer } from './bare-server.js';
import { fmtMs, fmtRate, printTable, progress, withCpu, type Row } from './stats.js';
import { heapPerObject } from './vk8s-heap.js';
import { watchFanout } from './vk8s-watch.js';
import { runWrk, type WrkJob, type WrkResult } from './wrk.js';

const HELP = `Usage: npm run bench -- vk8s [options]

The virtual Kubernetes API of a real control plane (SQLite in a temporary home, HTTPS, an API
token) next to a bare node:https server with the same TLS settings answering fixed bodies of
the same sizes, in the same run. Loads come from wrk (GET, LIST, CREATE) and from separate
client processes (watch fan-out: one holds the watches, another writes). Last, the live heap
per ConfigMap (and its Placed event) after full collections, next to their JSON.

Options:
  --seconds N        wrk duration of each measurement (default 5)
  --connections N    wrk keep-alive connections (default 16)
  --objects N        ConfigMaps (~1 KB) in the listed collection (default 500)
  --watchers N       concurrent watches of one collection (default 1000)
  --rate N           writes per second during the fan-out (default 100)
  --watch-seconds N  how long the measured writes go on (default 10)
  --watch-warmup N   seconds of writes before them, delivered and checked but timed apart
                     (default 3; the same for the bare server): a long-running server's
                     steady state, not the first seconds of its JIT and TLS buffers
  --bookmarks        watches ask for bookmarks (allowWatchBookmarks, as client-go informers do)
  --heap-objects N   ConfigMaps created for the live-heap figure (default 5000)
  --only LIST        comma-separated subset of get,list,create,watch,heap
  --profile DIR      write a V8 CPU profile of the control plane (this process) during the
                     watch fan-out into DIR
  -h, --help         this text`;

const CONFIG_PAYLOAD = Array.from({ length: 40 }, (_, i) => `key${String(i).padStart(2, '0')}: value-${i}`).join('\n');
/** A ConfigMap of about 1 KB once the server has added its metadata. */
const configMap = (name: string, extra: Record<string, string> = {}): string =>
  JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'bench', tier: 'backend' } }, data: { ...extra, 'settings.yaml': CONFIG_PAYLOAD } });

const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;
const verdict = (goal: string, figure: string, met: boolean): string => `${met ? 'met   ' : 'MISSED'}  ${goal}: ${figure}`;
const kb = (bytes: number): string => (bytes < 10_000 ? `${(bytes / 1024).toFixed(1)} KiB` : `${Math.round(bytes / 1024)} KiB`);
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

interface Options {
  seconds: number;
  connections: number;
  objects: number;
  watchers: number;
  rate: number;
  watchSeconds: number;
  watchWarmup: number;
  heapObjects: number;
  bookmarks: boolean;
  only: Set<string>;
  profileDir?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      seconds: { type: 'string', default: '5' },
      connections: { type: 'string', default: '16' },
      objects: { type: 'string', default: '500' },
      watchers: { type: 'string', default: '1000' },
      rate: { type: 'string', default: '100' },
      'watch-seconds': { type: 'string', default: '10' },
      'watch-warmup': { type: 'string', default: '3' },
      'heap-objects': { type: 'string', default: '5000' },
      bookmarks: { type: 'boolean', default: false },
      only: { type: 'string', default: 'get,list,create,watch,heap' },
      profile: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const positive = (name: string, value: string): number => {
    const n = Number(value);
    if (!(n > 0)) throw new Error(`--${name} must be a positive number, not "${value}"`);
    return n;
  };
  const wholeOrZero = (name: string, value: string): number => {
    const n = Number(value);
    if (!(Number.isInteger(n) && n >= 0)) throw new Error(`--${name} must be a whole number of seconds (0 or more), not "${value}"`);
    return n;
  };
  return {
    seconds: positive('seconds', values.seconds),
    connections: positive('connections', values.connections),
    objects: positive('objects', values.objects),
    watchers: positive('watchers', values.watchers),
    rate: positive('rate', values.rate),
    watchSeconds: positive('watch-seconds', values['watch-seconds']),
    watchWarmup: wholeOrZero('watch-warmup', values['watch-warmup']),
    heapObjects: positive('heap-objects', values['heap-objects']),
    bookmarks: values.bookmarks,
    only: parts(values.only),
    ...(values.profile === undefined ? {} : { profileDir: values.profile }),
  };
}

const PARTS = ['get', 'list', 'create', 'watch', 'heap'];

function parts(list: string): Set<string> {
  const names = list.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !PARTS.includes(n));
  if (unknown.length > 0) throw new Error(`--only takes ${PARTS.join(', ')}; not ${unknown.join(', ')}`);
  return new Set(names);
}

/** The control plane under test, with its clusters' collection paths and an HTTPS client. */
interface Subject {
  readonly url: string;
  readonly ca: string;
  readonly headers: Record<string, string>;
  call(method: string, path: string, body?: string): Promise<HttpsResponse>;
}

/** A collection of cluster `vk`, which lives in its own platform namespace (a namespace holds one), whose name is the cluster's one namespace. */
const collection = (namespace: string, resource = 'configmaps'): string => `/api/vk8s/namespaces/${namespace}/vk/api/v1/namespaces/${namespace}/${resource}`;

async function expectStatus(response: Promise<HttpsResponse>, status: number, what: string): Promise<HttpsResponse> {
  const r = await response;
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
  return r;
}

/** A wrk run with the CPU this process (the server under test) spent per request. */
interface Measured extends WrkResult {
  readonly cpuMicros: number;
}

async function measure(what: string, job: WrkJob): Promise<Measured> {
  const { result, cpuSeconds } = await withCpu(() => runWrk(job));
  if (result.errors > 0 || !(result.rate > 0)) throw new Error(`${what}: ${result.errors} requests failed (rate ${result.rate})`);
  return { ...result, cpuMicros: (cpuSeconds * 1e6) / (result.rate * job.seconds) };
}

const cpuRow = (measure: string, m: Measured, bare: Measured): Row => ({
  area: 'vk8s',
  measure: `${measure}: server CPU/request`,
  value: `${Math.round(m.cpuMicros)} µs`,
  baseline: `${Math.round(bare.cpuMicros)} µs bare`,
  ratio: ratio(m.cpuMicros, bare.cpuMicros),
});

/**
 * GET, LIST and CREATE of ConfigMaps through the vK8s API (wrk) next to the bare server
 * answering bodies of the same sizes; each pair is measured back to back.
 */
async function requestRates(s: Subject, bare: BareServer, o: Options, rows: Row[], goals: string[]): Promise<void> {
  const wrk = (what: string, path: string, extra: { method?: string; body?: string } = {}): Promise<Measured> =>
    measure(what, { url: s.url, path, headers: s.headers, connections: o.connections, seconds: o.seconds, ...extra });
  const bareWrk = (what: string, path: string, extra: { method?: string; body?: string } = {}): Promise<Measured> =>
    measure(what, { url: bare.url, path, connections: o.connections, seconds: o.seconds, ...extra });
  const reads = collection('reads');
  if (o.only.has('get') || o.only.has('list')) {
    progress(`creating ${o.objects} ConfigMaps to read`);
    for (let i = 0; i < o.objects; i += 8) {
      await Promise.all(Array.from({ length: Math.min(8, o.objects - i) }, (_, k) => expectStatus(s.call('POST', reads, configMap(`cm-${i + k}`)), 201, 'create')));
    }
  }
  if (o.only.has('get')) {
    const body = (await expectStatus(s.call('GET', `${reads}/cm-0`), 200, 'get')).body;
    bare.answer('GET', '/get', { status: 200, body: Buffer.from(body) });
    progress(`GET one ConfigMap (${kb(body.length)}) for ${o.seconds} s, ${o.connections} connections: vK8s, then bare`);
    const get = await wrk('vK8s GET', `${reads}/cm-0`);
    const bareGet = await bareWrk('bare GET', '/get');
    const m = `GET 1 obj/s (${kb(body.length)})`;
    rows.push(
      { area: 'vk8s', measure: m, value: `${fmtRate(get.rate)} (p99 ${fmtMs(get.p99)})`, baseline: `${fmtRate(bareGet.rate)} (p99 ${fmtMs(bareGet.p99)}) bare`, ratio: ratio(get.rate, bareGet.rate) },
      cpuRow('GET', get, bareGet),
    );
    goals.push(verdict(`GET ≥ 0.40× the bare server's requests/s`, ratio(get.rate, bareGet.rate), get.rate >= 0.4 * bareGet.rate));
  }
  if (o.only.has('list')) {
    const body = (await expectStatus(s.call('GET', reads), 200, 'list')).body;
    bare.answer('GET', '/list', { status: 200, body: Buffer.from(body) });
    progress(`LIST ${o.objects} ConfigMaps (${kb(body.length)}) for ${o.seconds} s: consistent (store), resourceVersion=0 (watch cache), bare`);
    const list = await wrk('vK8s LIST', reads);
    const cached = await wrk('vK8s LIST rv=0', `${reads}?resourceVersion=0`);
    const bareList = await bareWrk('bare LIST', '/list');
    const base = `${fmtRate(bareList.rate)} (p50 ${fmtMs(bareList.p50)}, p99 ${fmtMs(bareList.p99)}) bare`;
    rows.push(
      { area: 'vk8s', measure: `LIST ${o.objects}/s (${kb(body.length)})`, value: `${fmtRate(list.rate)} (p50 ${fmtMs(list.p50)}, p99 ${fmtMs(list.p99)})`, baseline: base, ratio: ratio(list.rate, bareList.rate) },
      cpuRow('LIST', list, bareList),
      { area: 'vk8s', measure: `LIST ${o.objects}/s, rv=0 (cache)`, value: `${fmtRate(cached.rate)} (p50 ${fmtMs(cached.p50)}, p99 ${fmtMs(cached.p99)})`, baseline: base, ratio: ratio(cached.rate, bareList.rate) },
      cpuRow('LIST rv=0', cached, bareList),
    );
  }
  if (o.only.has('create')) {
    const creates = collection('creates');
    const probe = configMap('probe');
    const answer = (await expectStatus(s.call('POST', creates, probe), 201, 'create')).body;
    bare.answer('POST', '/create', { status: 201, body: Buffer.from(answer) });
    progress(`CREATE ConfigMaps (${kb(probe.length)} in, ${kb(answer.length)} out) for ${o.seconds} s, ${o.connections} connections: vK8s, then bare`);
    const create = await wrk('vK8s CREATE', creates, { method: 'POST', body: configMap('cr-{n}') });
    const bareCreate = await bareWrk('bare POST', '/create', { method: 'POST', body: configMap('cr-{n}') });
    rows.push({
      area: 'vk8s',
      measure: 'CREATE/s (SQLite, fsync each)',
      value: `${fmtRate(create.rate)} (p50 ${fmtMs(create.p50)}, p99 ${fmtMs(create.p99)})`,
      baseline: `${fmtRate(bareCreate.rate)} (p99 ${fmtMs(bareCreate.p99)}) bare POST`,
      ratio: ratio(create.rate, bareCreate.rate),
    }, cpuRow('CREATE', create, bareCreate));
  }
}

/**
 * The vK8s API of a real control plane (SQLite, HTTPS, API token) under wrk and under a watch
 * fan-out, each figure next to a bare node:https server doing the transport part only.
 */
export async function benchVk8s(args: string[]): Promise<void> {
  const o = parseOptions(args);
  if (o === undefined) return console.log(HELP);
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-bench-vk8s-'));
  const rows: Row[] = [];
  const goals: string[] = [];
  const loadBefore = load();
  const agent = new Agent({ keepAlive: true, maxSockets: 8 });
  let bare: BareServer | undefined;
  // Every client here (the watches, wrk) connects from 127.0.0.1: the cap per address is the server's.
  const controlPlane = await startControlPlane({ home, listen: { host: '127.0.0.1', port: 0 }, logger: createLogger({ level: 'silent' }), limits: { maxConnectionsPerAddress: DEFAULT_SERVER_LIMITS.maxConnections } });
  try {
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const headers = { authorization: `APIToken ${readFileSync(join(home, 'api-token'), 'utf8').trim()}` };
    const s: Subject = {
      url: controlPlane.url,
      ca,
      headers,
      call: (method, path, body) => httpsRequest(`${controlPlane.url}${path}`, ca, { method, agent, headers: { ...headers, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }) }),
    };
    for (const namespace of ['reads', 'creates', 'fanout', 'heap']) {
      await expectStatus(s.call('POST', '/api/web/namespaces', JSON.stringify({ metadata: { name: namespace } })), 200, `create namespace ${namespace}`);
      await expectStatus(s.call('POST', `/api/config/namespaces/${namespace}/virtual_k8ss`, JSON.stringify({ metadata: { name: 'vk' }, spec: {} })), 200, `create virtual_k8s ${namespace}/vk`);
    }
    bare = await startBareServer(join(home, 'pki'));
    await requestRates(s, bare, o, rows, goals);
    if (o.only.has('watch')) {
      const listRevision = async (path: string): Promise<string> =>
        (await expectStatus(s.call('GET', path), 200, 'list')).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      const body = configMap('ev-{seq}', { seq: '{seq}', sent: '{sent}' });
      const profiler = o.profileDir === undefined ? undefined : await startInProcessProfiler();
      const scrapeMetrics = async (): Promise<string> => (await expectStatus(s.call('GET', '/metrics'), 200, 'metrics')).body;
      const fanout = await watchFanout({ ...s, listRevision, scrapeMetrics }, bare, { watchers: o.watchers, rate: o.rate, seconds: o.watchSeconds, warmupSeconds: o.watchWarmup, bookmarks: o.bookmarks, path: collection('fanout'), body });
      if (profiler !== undefined && o.profileDir !== undefined) progress(`control plane CPU profile (the watch phase, then the bare one) written to ${await profiler.stop(o.profileDir, 'vk8s-watch')}`);
      rows.push(...fanout.rows);
      goals.push(
        verdict(`watch delivery p99 ≤ 50 ms at ${o.watchers} watches × ${o.rate} writes/s`, fmtMs(fanout.p99), fanout.p99 <= 50),
        verdict('no watch event lost', String(fanout.lost), fanout.lost === 0),
      );
    }
    if (o.only.has('heap')) {
      rows.push(...(await heapPerObject(s, { configMaps: collection('heap'), events: collection('heap', 'events') }, o.heapObjects, (name) => configMap(name))));
    }
  } finally {
    agent.destroy();
    await bare?.close();
    await controlPlane.close();
    rmSync(home, { recursive: true, force: true });
  }
  printTable('vK8s API (SQLite, HTTPS, API token) vs bare node:https with the same TLS settings and body sizes, same run', rows);
  console.log(`\n${goals.join('\n')}`);
  console.log(`\nload average (1, 5, 15 min): ${loadBefore} at the start, ${load()} at the end (${cpus().length} CPUs); wrk: ${o.connections} connections, ${o.seconds} s each`);
}
