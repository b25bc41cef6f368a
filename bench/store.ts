import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Etcd3 } from 'etcd3';
import { openEtcdStore } from '../src/store/etcd/index.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { EtcdTestServer } from '../src/store/testing/etcd-server.js';
import type { Store } from '../src/store/types.js';
import { fmtMs, fmtRate, latencySummary, nowMs, printTable, progress, rate, type Row } from './stats.js';

const VALUE = JSON.stringify({ kind: 'Pod', metadata: { name: 'bench', labels: { app: 'bench' } }, spec: { containers: [{ name: 'c', image: 'x' }] } });
const ratio = (port: number, raw: number): string => `${(port / raw).toFixed(2)}×`;

interface PortFigures {
  sequentialWrites: number;
  concurrentWrites: number;
  reads: number;
  watch: { p50: number; p99: number };
}

async function measurePort(store: Store, prefix: string, sizes: { seq: number; conc: number; reads: number; watch: number }): Promise<PortFigures> {
  progress(`port: ${sizes.seq} sequential creates`);
  const sequentialWrites = await rate(sizes.seq, 1, (i) => store.create(`${prefix}seq/${i}`, VALUE));
  progress(`port: ${sizes.conc} creates, 64 in flight`);
  const concurrentWrites = await rate(sizes.conc, 64, (i) => store.create(`${prefix}conc/${i}`, VALUE));
  progress(`port: ${sizes.reads} gets`);
  const reads = await rate(sizes.reads, 1, (i) => store.get(`${prefix}seq/${i % sizes.seq}`));
  progress(`port: watch delivery of ${sizes.watch} writes`);
  const watch = await watchLatency(store, `${prefix}watch/`, sizes.watch);
  return { sequentialWrites, concurrentWrites, reads, watch };
}

/**
 * Time from the start of a write to its event reaching a watcher (includes the durable
 * commit). One warm-up write is awaited first so the watch is established, as the raw
 * baseline awaits its watcher's creation.
 */
async function watchLatency(store: Store, prefix: string, count: number): Promise<{ p50: number; p99: number }> {
  const started = new Map<string, number>();
  const samples: number[] = [];
  const controller = new AbortController();
  const from = await store.currentRevision();
  let signalReady: () => void = () => undefined;
  const ready = new Promise<void>((r) => (signalReady = r));
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => (done = r));
  const reader = (async () => {
    for await (const event of store.watch(prefix, { fromRevision: from, signal: controller.signal })) {
      if (event.key === `${prefix}warm-up`) signalReady();
      const t0 = started.get(event.key);
      if (t0 !== undefined) samples.push(nowMs() - t0);
      if (samples.length === count) done();
    }
  })();
  await store.create(`${prefix}warm-up`, VALUE);
  await ready;
  for (let i = 0; i < count; i++) {
    const key = `${prefix}${i}`;
    started.set(key, nowMs());
    await store.create(key, VALUE);
  }
  await all;
  controller.abort();
  await reader;
  return latencySummary(samples);
}

/** The same measurement on a bare etcd3 watcher: the floor the port's etcd watch stands on. */
async function rawEtcdWatchLatency(client: Etcd3, count: number): Promise<{ p50: number; p99: number }> {
  const started = new Map<string, number>();
  const samples: number[] = [];
  let done: () => void = () => undefined;
  const all = new Promise<void>((r) => (done = r));
  const watcher = await client.watch().prefix('/raw/watch/').create();
  watcher.on('put', (kv) => {
    const t0 = started.get(kv.key.toString());
    if (t0 !== undefined) samples.push(nowMs() - t0);
    if (samples.length === count) done();
  });
  for (let i = 0; i < count; i++) {
    const key = `/raw/watch/${i}`;
    started.set(key, nowMs());
    await client.put(key).value(VALUE).exec();
  }
  await all;
  await watcher.cancel();
  return latencySummary(samples);
}

async function benchSqlite(rows: Row[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-bench-'));
  try {
    progress('raw better-sqlite3 (WAL, synchronous=FULL): autocommit inserts');
    const db = new Database(join(dir, 'raw.db'));
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, value TEXT NOT NULL); CREATE INDEX kv_name ON kv (name)');
    const insert = db.prepare('INSERT INTO kv (name, value) VALUES (?, ?)');
    const select = db.prepare('SELECT * FROM kv WHERE name = ? ORDER BY id DESC LIMIT 1');
    const rawLatency: number[] = [];
    const rawWrites = await rate(3000, 1, (i) => {
      const t0 = nowMs();
      insert.run(`/seq/${i}`, VALUE);
      rawLatency.push(nowMs() - t0);
      return Promise.resolve();
    });
    const rawReads = await rate(20000, 1, (i) => Promise.resolve(select.get(`/seq/${i % 3000}`)));
    db.close();
    const raw = latencySummary(rawLatency);

    const store = openSqliteStore({ path: join(dir, 'port.db') });
    const port = await measurePort(store, '/bench/', { seq: 3000, conc: 20000, reads: 20000, watch: 2000 });
    await store.close();
    rows.push(
      { area: 'sqlite', measure: 'writes/s, sequential', value: fmtRate(port.sequentialWrites), baseline: `${fmtRate(rawWrites)} raw autocommit insert`, ratio: ratio(port.sequentialWrites, rawWrites) },
      { area: 'sqlite', measure: 'writes/s, 64 in flight', value: fmtRate(port.concurrentWrites), baseline: `${fmtRate(rawWrites)} raw autocommit insert`, ratio: ratio(port.concurrentWrites, rawWrites) },
      { area: 'sqlite', measure: 'reads/s (get)', value: fmtRate(port.reads), baseline: `${fmtRate(rawReads)} raw select`, ratio: ratio(port.reads, rawReads) },
      { area: 'sqlite', measure: 'watch write→event p50', value: fmtMs(port.watch.p50), baseline: `${fmtMs(raw.p50)} raw insert latency`, ratio: ratio(port.watch.p50, raw.p50) },
      { area: 'sqlite', measure: 'watch write→event p99', value: fmtMs(port.watch.p99), baseline: `${fmtMs(raw.p99)} raw insert latency`, ratio: ratio(port.watch.p99, raw.p99) },
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function benchEtcd(rows: Row[]): Promise<void> {
  progress('starting a real etcd on a free loopback port');
  const server = await EtcdTestServer.create();
  try {
    const client = new Etcd3({ hosts: [server.endpoint] });
    progress('raw etcd3: sequential puts, 64 in flight, gets');
    const rawSequential = await rate(1000, 1, (i) => client.put(`/raw/seq/${i}`).value(VALUE).exec());
    const rawConcurrent = await rate(6000, 64, (i) => client.put(`/raw/conc/${i}`).value(VALUE).exec());
    const rawReads = await rate(5000, 1, (i) => client.get(`/raw/seq/${i % 1000}`).string());
    progress('raw etcd3: watch delivery of 1000 puts');
    const rawWatch = await rawEtcdWatchLatency(client, 1000);
    client.close();

    const store = openEtcdStore({ endpoints: [server.endpoint] });
    const port = await measurePort(store, '/bench/', { seq: 1000, conc: 6000, reads: 5000, watch: 1000 });
    await store.close();
    rows.push(
      { area: 'etcd', measure: 'writes/s, sequential', value: fmtRate(port.sequentialWrites), baseline: `${fmtRate(rawSequential)} raw etcd3 put`, ratio: ratio(port.sequentialWrites, rawSequential) },
      { area: 'etcd', measure: 'writes/s, 64 in flight', value: fmtRate(port.concurrentWrites), baseline: `${fmtRate(rawConcurrent)} raw etcd3 put, 64 in flight`, ratio: ratio(port.concurrentWrites, rawConcurrent) },
      { area: 'etcd', measure: 'reads/s (get)', value: fmtRate(port.reads), baseline: `${fmtRate(rawReads)} raw etcd3 get`, ratio: ratio(port.reads, rawReads) },
      { area: 'etcd', measure: 'watch write→event p50', value: fmtMs(port.watch.p50), baseline: `${fmtMs(rawWatch.p50)} raw etcd3 watch`, ratio: ratio(port.watch.p50, rawWatch.p50) },
      { area: 'etcd', measure: 'watch write→event p99', value: fmtMs(port.watch.p99), baseline: `${fmtMs(rawWatch.p99)} raw etcd3 watch`, ratio: ratio(port.watch.p99, rawWatch.p99) },
    );
  } finally {
    await server.stop();
  }
}

export async function benchStore(args: string[]): Promise<void> {
  const only = new Set(args.filter((a) => !a.startsWith('-')));
  const rows: Row[] = [];
  if (only.size === 0 || only.has('sqlite')) await benchSqlite(rows);
  if (only.size === 0 || only.has('etcd')) await benchEtcd(rows);
  printTable('Store port vs raw backend (throughput ratio ≥ 0.5× is the goal; latency ratio ≤ 2×)', rows);
}
