import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent } from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { httpsRequest, type HttpsResponse } from '../src/client/https-client.js';
import { fmtMs, latencySummary, nowMs, printTable, progress, type Row } from './stats.js';

const HELP = `Usage: npm run bench -- placement [options]

A real control plane (\`edgeplane server\`, SQLite, its own process) and one site agent process
simulating many regional-edge sites (\`edgeplane site --simulate-sites N\`, simulated runtime).
A vK8s whose default placement is the platform's virtual site of every regional edge gets one
Deployment with replicas 1: every site runs one pod. Measured per fleet size: the time from the
Deployment's create until every pod is Running and Ready (the Deployment's summed status), the
control plane's peak RSS, and the vK8s API's p99 latency during the rollout (a probe GETting the
Deployment and listing 100 pods, sequentially). Baselines from the same run: the same number of
durable writes as the rollout made, done on raw better-sqlite3 (WAL, synchronous=FULL,
autocommit), and the probe's p99 on the idle control plane before the rollout.

Options:
  --sites LIST     comma-separated fleet sizes, each on a fresh control plane (default 1000,10000)
  --timeout S      give up on a rollout after S seconds (default 300)
  --profile DIR    write the control plane's and the site agent's V8 CPU profiles (.cpuprofile) into DIR
  -h, --help       this text`;

const BIN = fileURLToPath(new URL('../../bin/edgeplane.js', import.meta.url));
const GOAL_SECONDS = 60;
const GOAL_RSS_BYTES = 2 * 1024 ** 3;
const GOAL_P99_MS = 1000;

interface Options {
  readonly sizes: number[];
  readonly timeoutSeconds: number;
  readonly profileDir?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({ args, options: { sites: { type: 'string', default: '1000,10000' }, timeout: { type: 'string', default: '300' }, profile: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
  if (values.help) return undefined;
  const sizes = values.sites.split(',').map((s) => Number(s.trim()));
  if (sizes.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`--sites takes whole numbers, not "${values.sites}"`);
  const timeoutSeconds = Number(values.timeout);
  if (!(timeoutSeconds > 0)) throw new Error(`--timeout must be a positive number, not "${values.timeout}"`);
  return { sizes, timeoutSeconds, ...(values.profile === undefined ? {} : { profileDir: values.profile }) };
}

/** A child process of the `edgeplane` command, its output kept for the error message if it dies. */
function launch(args: string[], what: string, nodeArgs: string[] = []): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [...nodeArgs, BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.on('exit', (code, signal) => {
    if (code !== 0 && code !== null) process.stderr.write(`${what} exited (${code ?? signal}):\n${output}\n`);
  });
  return { child, output: () => output };
}

async function waitFor<T>(what: string, timeoutMs: number, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

/** Peak resident memory (VmHWM) of a process, in bytes. */
function peakRss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:')) ?? 'VmHWM: 0 kB';
  return Number(/(\d+)/.exec(line)?.[1] ?? 0) * 1024;
}

interface Api {
  call(method: string, path: string, body?: unknown, token?: string): Promise<HttpsResponse>;
}

async function ok(response: Promise<HttpsResponse>, what: string, status = 200): Promise<HttpsResponse> {
  const r = await response;
  if (r.status !== status) throw new Error(`${what}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
  return r;
}

const CLUSTER = '/api/vk8s/namespaces/default/vk';
const DEPLOYMENTS = `${CLUSTER}/apis/apps/v1/namespaces/default/deployments`;
const PODS = `${CLUSTER}/api/v1/namespaces/default/pods`;

/** Sequential probe requests until stopped: their latencies. */
function probe(api: Api): { stop: () => Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      for (const path of [`${DEPLOYMENTS}/web`, `${PODS}?limit=100`]) {
        const t0 = nowMs();
        const r = await api.call('GET', path);
        if (r.status !== 200 && r.status !== 404) throw new Error(`probe ${path}: HTTP ${r.status}: ${r.body.slice(0, 200)}`);
        samples.push(nowMs() - t0);
      }
      await sleep(50);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return samples;
    },
  };
}

async function currentRevision(api: Api): Promise<number> {
  const r = await ok(api.call('GET', `${PODS}?limit=1`), 'list pods');
  return Number(r.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
}

/** Seconds raw better-sqlite3 needs for `writes` durable autocommit writes of pod-sized rows. */
function rawSqliteSeconds(dir: string, writes: number): number {
  const db = new Database(join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, value TEXT)');
  const insert = db.prepare('INSERT INTO kv (name, value) VALUES (?, ?)');
  const value = JSON.stringify({ kind: 'Pod', metadata: { name: 'bench', labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] }, pad: 'x'.repeat(1500) });
  const t0 = nowMs();
  for (let i = 0; i < writes; i++) insert.run(`k${i}`, value);
  const seconds = (nowMs() - t0) / 1000;
  db.close();
  return seconds;
}

/**
 * The rollout's durable writes by what they wrote (`/vk8s/core/pods`, `/vk8s/core/events`,
 * `/config`, …), read from the control plane's SQLite log (rows above `after`; compaction
 * keeps a key's newest row, so superseded rows of a busy key may be missing — a lower bound).
 */
function writesByKind(home: string, after: number): string {
  const db = new Database(join(home, 'store', 'edgeplane.db'), { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare<[number], { name: string }>('SELECT name FROM kv WHERE id > ?').all(after);
    const counts = new Map<string, number>();
    for (const { name } of rows) {
      const parts = name.split('/');
      const kind = parts[1] === 'vk8s' ? parts.slice(0, 4).join('/') : parts.slice(0, 3).join('/');
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  } finally {
    db.close();
  }
}

interface Figures {
  readonly sites: number;
  readonly rolloutSeconds: number;
  readonly writes: number;
  readonly rawSeconds: number;
  readonly peakRss: number;
  readonly idle: { p50: number; p99: number };
  readonly during: { p50: number; p99: number };
}

async function runOne(sites: number, o: Options): Promise<Figures> {
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-bench-placement-'));
  const processes: ChildProcess[] = [];
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    progress(`${sites} sites: starting the control plane`);
    const profile = o.profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${o.profileDir}`];
    const server = launch(['server', '--home', home, '--listen', '127.0.0.1:0', '--log-level', 'warn'], 'edgeplane server', profile);
    processes.push(server.child);
    const url = await waitFor('the server URL', 30_000, () => Promise.resolve(existsSync(join(home, 'server-url')) ? readFileSync(join(home, 'server-url'), 'utf8').trim() : undefined));
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const tenantToken = readFileSync(join(home, 'api-token'), 'utf8').trim();
    const platformToken = readFileSync(join(home, 'platform-api-token'), 'utf8').trim();
    const api: Api = {
      call: (method, path, body, token = tenantToken) =>
        httpsRequest(`${url}${path}`, ca, { method, agent, headers: { authorization: `APIToken ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
    };
    const issued = await ok(api.call('POST', '/api/sites/v1/tokens', { type: 'REGIONAL_EDGE', ttl_seconds: 3600 }, platformToken), 'site token');
    const token = issued.json<{ token: string }>().token;

    progress(`${sites} sites: registering them (one agent process, simulated runtime)`);
    const siteHome = join(home, 'site');
    const siteAgent = launch(
      ['site', '--name', 'bench', '--type', 'REGIONAL_EDGE', '--simulate-sites', String(sites), '--nodes', '1', '--cpu', '8', '--memory', '16Gi', '--server', url, '--registration-token', token, '--home', siteHome, '--log-level', 'warn'],
      'edgeplane site',
      profile,
    );
    processes.push(siteAgent.child);
    await waitFor(`${sites} registered sites`, o.timeoutSeconds * 1000, async () => {
      const r = await ok(api.call('GET', '/api/config/namespaces/svc-io-system/sites', undefined, platformToken), 'list sites');
      const count = r.json<{ items: unknown[] }>().items.length;
      progress(`  ${count}/${sites} sites registered`);
      return count >= sites ? count : undefined;
    });

    await ok(api.call('POST', '/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk' }, spec: { vsite_refs: [{ namespace: 'svc-io-shared', name: 'all-regional-edges' }] } }), 'create virtual_k8s');
    await waitFor('the vK8s API', 30_000, async () => ((await api.call('GET', `${PODS}?limit=1`)).status === 200 ? true : undefined));
    progress('probing the idle API for 5 s');
    const idleProbe = probe(api);
    await sleep(5000);
    const idle = latencySummary(await idleProbe.stop());

    const before = await currentRevision(api);
    const during = probe(api);
    const t0 = nowMs();
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } } },
    };
    await ok(api.call('POST', DEPLOYMENTS, deployment), 'create deployment', 201);
    progress(`${sites} sites: Deployment created; waiting until ${sites} pods are Ready`);
    await waitFor(`${sites} ready pods`, o.timeoutSeconds * 1000, async () => {
      const r = await ok(api.call('GET', `${DEPLOYMENTS}/web`), 'get deployment');
      const ready = r.json<{ status?: { readyReplicas?: number } }>().status?.readyReplicas ?? 0;
      progress(`  ${ready}/${sites} pods ready after ${((nowMs() - t0) / 1000).toFixed(1)} s`);
      return ready >= sites ? ready : undefined;
    });
    const rolloutSeconds = (nowMs() - t0) / 1000;
    const samples = await during.stop();
    const writes = (await currentRevision(api)) - before;
    progress(`writes by kind: ${writesByKind(home, before)}`);
    const rss = peakRss(server.child.pid ?? 0);
    progress(`raw SQLite baseline: ${writes} durable writes`);
    const rawSeconds = rawSqliteSeconds(home, writes);
    return { sites, rolloutSeconds, writes, rawSeconds, peakRss: rss, idle, during: latencySummary(samples) };
  } finally {
    agent.destroy();
    for (const child of processes.reverse()) {
      child.kill('SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    }
    rmSync(home, { recursive: true, force: true });
  }
}

const mib = (bytes: number): string => `${Math.round(bytes / 1024 ** 2)} MiB`;
const seconds = (s: number): string => `${s.toFixed(1)} s`;

/** `npm run bench -- placement`: one Deployment rolled out to 1,000 and 10,000 simulated sites. */
export async function benchPlacement(args: string[]): Promise<void> {
  const o = parseOptions(args);
  if (o === undefined) return console.log(HELP);
  const loadBefore = loadavg().map((l) => l.toFixed(2)).join(' ');
  const rows: Row[] = [];
  const goals: string[] = [];
  for (const sites of o.sizes) {
    const f = await runOne(sites, o);
    const area = `${sites} sites`;
    rows.push(
      { area, measure: 'Deployment → every pod Ready', value: seconds(f.rolloutSeconds), baseline: `${seconds(f.rawSeconds)} raw SQLite, same ${f.writes} writes`, ratio: `${(f.rolloutSeconds / f.rawSeconds).toFixed(2)}×` },
      { area, measure: 'control plane peak RSS', value: mib(f.peakRss), baseline: '—', ratio: '—' },
      { area, measure: 'API p50 / p99 during rollout', value: `${fmtMs(f.during.p50)} / ${fmtMs(f.during.p99)}`, baseline: `${fmtMs(f.idle.p50)} / ${fmtMs(f.idle.p99)} idle`, ratio: `${(f.during.p99 / f.idle.p99).toFixed(1)}×` },
    );
    if (sites === 10_000) {
      goals.push(
        `${f.rolloutSeconds <= GOAL_SECONDS ? 'met   ' : 'MISSED'}  10,000 pods on 10,000 sites Running within ${GOAL_SECONDS} s: ${seconds(f.rolloutSeconds)}`,
        `${f.peakRss <= GOAL_RSS_BYTES ? 'met   ' : 'MISSED'}  control plane RSS ≤ 2 GiB: ${mib(f.peakRss)}`,
        `${f.during.p99 <= GOAL_P99_MS ? 'met   ' : 'MISSED'}  API p99 ≤ 1 s during the rollout: ${fmtMs(f.during.p99)}`,
      );
    }
  }
  printTable('Placement: one Deployment (replicas 1) over every simulated regional-edge site; control plane on SQLite', rows);
  if (goals.length > 0) console.log(`\n${goals.join('\n')}`);
  console.log(`\nload average (1, 5, 15 min): ${loadBefore} at the start, ${loadavg().map((l) => l.toFixed(2)).join(' ')} at the end (${cpus().length} CPUs)`);
}
