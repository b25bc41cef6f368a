import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createLogger } from '../src/observability/logger.js';
import { startControlPlane } from '../src/server/control-plane.js';
import { openSqliteStore } from '../src/store/sqlite/index.js';
import { fmtMs, fmtRate, printTable, progress, rate, type Row } from './stats.js';
import { runWrk } from './wrk.js';

const SECONDS = 5;
const POLICER = '{"metadata":{"name":"p{n}","labels":{"bench":"yes"}},"spec":{"committed_information_rate":1000,"burst_size":100}}';
const ratio = (a: number, b: number): string => `${(a / b).toFixed(2)}×`;

/** Raw better-sqlite3 autocommit inserts with the store's durability (WAL, synchronous=FULL): one fsync per write. */
async function rawSqliteInserts(path: string): Promise<number> {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, value TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO kv (name, value) VALUES (?, ?)');
  const result = await rate(2000, 1, (i) => Promise.resolve(insert.run(`/raw/${i}`, POLICER)));
  db.close();
  return result;
}

/**
 * The configuration API on SQLite over HTTPS, loaded by wrk (a separate native process), next
 * to the store port and raw SQLite measured in the same run, and to a bare node:https server.
 */
export async function benchConfig(): Promise<void> {
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-bench-config-'));
  const rows: Row[] = [];
  try {
    progress('raw better-sqlite3 autocommit inserts (WAL, synchronous=FULL)');
    const rawInserts = await rawSqliteInserts(join(home, 'raw-sqlite.db'));
    const store = openSqliteStore({ path: join(home, 'raw-store.db') });
    progress('store port: creates 1 and 16 in flight, gets, lists of 100');
    const storeCreate1 = await rate(2000, 1, (i) => store.create(`/s1/${i}`, POLICER));
    const storeCreate16 = await rate(20000, 16, (i) => store.create(`/s16/${i}`, POLICER));
    const storeGet = await rate(50000, 16, (i) => store.get(`/s16/${i % 20000}`));
    for (let i = 0; i < 100; i++) await store.create(`/list/${i}`, POLICER);
    const storeList = await rate(3000, 16, () => store.list('/list/'));
    await store.close();

    // wrk sends every request with one token: the configuration API's rate limit is off to measure its capacity.
    const controlPlane = await startControlPlane({ home, listen: { host: '127.0.0.1', port: 0 }, logger: createLogger({ level: 'silent' }), limits: { configApiRate: 0 } });
    const token = readFileSync(join(home, 'api-token'), 'utf8').trim();
    const base = { url: controlPlane.url, headers: { authorization: `APIToken ${token}` }, seconds: SECONDS };
    progress(`config API: creates for ${SECONDS} s, 1 then 16 connections (wrk)`);
    const create1 = await runWrk({ ...base, method: 'POST', path: '/api/config/namespaces/default/policers', body: POLICER, connections: 1 });
    const create16 = await runWrk({ ...base, method: 'POST', path: '/api/config/namespaces/default/policers', body: POLICER.replace('"p{n}"', '"q{n}"'), connections: 16 });
    progress('config API: gets and lists of 100');
    await controlPlane.registerSite({ tenant: 'acme', namespace: 'system', name: 'bench-site', labels: {}, spec: { site_type: 'CUSTOMER_EDGE' } });
    const get = await runWrk({ ...base, path: '/api/config/namespaces/system/sites/bench-site?response_format=GET_RSP_FORMAT_READ', connections: 16 });
    const getDefault = await runWrk({ ...base, path: '/api/config/namespaces/system/sites/bench-site', connections: 16 });
    const { httpsRequest } = await import('../src/client/https-client.js');
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    await httpsRequest(`${controlPlane.url}/api/web/namespaces`, ca, { method: 'POST', headers: base.headers, body: '{"metadata":{"name":"hundred"}}' });
    for (let i = 0; i < 100; i++) {
      await httpsRequest(`${controlPlane.url}/api/config/namespaces/hundred/policers`, ca, { method: 'POST', headers: base.headers, body: POLICER.replace('{n}', String(i)) });
    }
    const list = await runWrk({ ...base, path: '/api/config/namespaces/hundred/policers?report_fields', connections: 16 });
    await controlPlane.close();

    progress('bare node:https answering a fixed body (wrk)');
    const bare = createServer({ cert: readFileSync(join(home, 'pki', 'apiserver.crt')), key: readFileSync(join(home, 'pki', 'apiserver.key')) }, (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    await new Promise<void>((r) => bare.listen(0, '127.0.0.1', r));
    const bareUrl = `https://127.0.0.1:${(bare.address() as AddressInfo).port}`;
    const bareGet = await runWrk({ url: bareUrl, path: '/', connections: 16, seconds: SECONDS });
    const barePost1 = await runWrk({ url: bareUrl, path: '/', method: 'POST', body: POLICER, connections: 1, seconds: SECONDS });
    bare.close();

    rows.push(
      { area: 'config', measure: 'create/s, 1 connection', value: `${fmtRate(create1.rate)} (p99 ${fmtMs(create1.p99)})`, baseline: `${fmtRate(rawInserts)} raw SQLite insert`, ratio: ratio(create1.rate, rawInserts) },
      { area: 'config', measure: 'create/s, 1 connection', value: fmtRate(create1.rate), baseline: `${fmtRate(storeCreate1)} store port create`, ratio: ratio(create1.rate, storeCreate1) },
      { area: 'config', measure: 'create/s, 1 connection', value: fmtRate(create1.rate), baseline: `${fmtRate(barePost1.rate)} bare node:https POST`, ratio: ratio(create1.rate, barePost1.rate) },
      { area: 'config', measure: 'create/s, 16 connections', value: `${fmtRate(create16.rate)} (p99 ${fmtMs(create16.p99)})`, baseline: `${fmtRate(rawInserts)} raw SQLite insert`, ratio: ratio(create16.rate, rawInserts) },
      { area: 'config', measure: 'create/s, 16 connections', value: fmtRate(create16.rate), baseline: `${fmtRate(storeCreate16)} store port create, 16 in flight`, ratio: ratio(create16.rate, storeCreate16) },
      { area: 'config', measure: 'get/s (READ), 16 conn.', value: `${fmtRate(get.rate)} (p99 ${fmtMs(get.p99)})`, baseline: `${fmtRate(bareGet.rate)} bare node:https`, ratio: ratio(get.rate, bareGet.rate) },
      { area: 'config', measure: 'get/s (DEFAULT), 16 conn.', value: `${fmtRate(getDefault.rate)} (p99 ${fmtMs(getDefault.p99)})`, baseline: `${fmtRate(storeGet)} store get`, ratio: ratio(getDefault.rate, storeGet) },
      { area: 'config', measure: 'list of 100/s, 16 conn.', value: `${fmtRate(list.rate)} (p99 ${fmtMs(list.p99)})`, baseline: `${fmtRate(storeList)} store list`, ratio: ratio(list.rate, storeList) },
    );
    const errors = [create1, create16, get, getDefault, list].reduce((n, r) => n + r.errors, 0);
    if (errors > 0) throw new Error(`${errors} requests failed during the benchmark`);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
  printTable('Configuration API on SQLite over HTTPS (wrk) vs the same work on the store and raw SQLite, same run', rows);
}
