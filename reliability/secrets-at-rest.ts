import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsRequest } from '../src/client/https-client.js';
import { createLogger } from '../src/observability/logger.js';
import { startControlPlane } from '../src/server/control-plane.js';
import type { StoreConfig } from '../src/store/open-store.js';
import { scanForNeedles, secretForms, sqliteStoreFiles } from '../src/store/testing/at-rest-scan.js';
import { EtcdTestServer } from '../src/store/testing/etcd-server.js';
import type { AreaReport, ReliabilityArea, Scale } from './area.js';

const SECRETS = { short: 20, long: 1000 } as const satisfies Record<Scale, number>;
const CONCURRENCY = 8;
const CLUSTER = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default';

interface BackendRun {
  readonly backend: string;
  readonly secrets: number;
  readonly readBack: number;
  readonly files: number;
  readonly bytes: number;
  readonly hits: number;
  /** Occurrences of the ConfigMaps' values, written in the clear: the scan reads the right files. */
  readonly controlHits: number;
  readonly seconds: number;
}

/** Runs `work` over `items` with at most `limit` at once. */
async function eachLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: limit }, async () => {
    while (next < items.length) await work(items[next++] as T);
  }));
}

/**
 * Writes `count` vK8s Secrets (each a unique value, in `data` and in `stringData`) and a
 * secret_management_access object with a clear Vault token through a real control plane on
 * `store`, reads them all back through the API, and scans every file of the store for each
 * value's plaintext and base64 forms. Every value starts with one run tag of 24 bytes, so
 * four needles (the tag, and its base64 at three alignments) find any of them.
 */
async function runBackend(name: string, store: StoreConfig | undefined, files: (home: string) => string[], count: number, progress: (line: string) => void): Promise<BackendRun> {
  const started = performance.now();
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-at-rest-'));
  const tag = `sar${randomBytes(10).toString('hex')}x`;
  const control = `ctl${randomBytes(10).toString('hex')}x`;
  // Without a store the control plane keeps SQLite in <home>/store/edgeplane.db, as `edgeplane server` does.
  const controlPlane = await startControlPlane({ home, listen: { host: '127.0.0.1', port: 0 }, ...(store === undefined ? {} : { store }), logger: createLogger({ level: 'silent' }), controllers: [] });
  try {
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const token = readFileSync(join(home, 'api-token'), 'utf8').trim();
    const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: string }> =>
      httpsRequest(`${controlPlane.url}${path}`, ca, { method, headers: { authorization: `APIToken ${token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const created = async (method: string, path: string, body: unknown, status: number): Promise<void> => {
      const answer = await call(method, path, body);
      if (answer.status !== status) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    };
    await created('POST', '/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: {} }, 200);
    const vaultToken = `${tag}vault`;
    await created(
      'POST',
      '/api/config/namespaces/default/secret_management_accesss',
      { metadata: { name: 'vault' }, spec: { provider_name: 'vault', access_info: { server_endpoint: 'vault.example:8200' }, vault_auth_info: { token: { clear_secret_info: { url: `string:///${Buffer.from(vaultToken).toString('base64')}` } } } } },
      200,
    );
    const indexes = Array.from({ length: count }, (_, i) => i);
    let written = 0;
    await eachLimited(indexes, CONCURRENCY, async (i) => {
      await created('POST', `${CLUSTER}/secrets`, { apiVersion: 'v1', kind: 'Secret', metadata: { name: `s${i}` }, data: { password: Buffer.from(`${tag}data${i}`).toString('base64') }, stringData: { token: `${tag}string${i}` } }, 201);
      if (i % 10 === 0) await created('POST', `${CLUSTER}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `c${i}` }, data: { value: `${control}${i}` } }, 201);
      if (++written % 250 === 0) progress(`${name}: ${written} of ${count} secrets written`);
    });
    // Every one reads back through the API (pages of 500 from the store, so through the codec's decryption).
    let readBack = 0;
    let next: string | undefined = '';
    while (next !== undefined) {
      const page = await call('GET', `${CLUSTER}/secrets?limit=500${next === '' ? '' : `&continue=${encodeURIComponent(next)}`}`);
      const list = JSON.parse(page.body) as { items: Array<{ metadata: { name: string }; data: Record<string, string> }>; metadata: { continue?: string } };
      for (const item of list.items) {
        const i = item.metadata.name.slice(1);
        const decode = (value: string | undefined): string => Buffer.from(value ?? '', 'base64').toString();
        if (decode(item.data['password']) === `${tag}data${i}` && decode(item.data['token']) === `${tag}string${i}`) readBack++;
      }
      next = list.metadata.continue === undefined || list.metadata.continue === '' ? undefined : list.metadata.continue;
    }
    const access = JSON.parse((await call('GET', '/api/config/namespaces/default/secret_management_accesss/vault')).body) as { spec: { vault_auth_info: { token: { clear_secret_info: { url: string } } } } };
    if (access.spec.vault_auth_info.token.clear_secret_info.url !== `string:///${Buffer.from(vaultToken).toString('base64')}`) throw new Error('the Vault token did not read back');
    const scan = scanForNeedles(files(home), secretForms(tag));
    const controlHits = scanForNeedles(files(home), [control]).hits.length;
    progress(`${name}: ${scan.files} files, ${scan.bytes} bytes scanned, ${scan.hits.length} hits`);
    return { backend: name, secrets: count, readBack, files: scan.files, bytes: scan.bytes, hits: scan.hits.length, controlHits, seconds: (performance.now() - started) / 1000 };
  } finally {
    await controlPlane.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Issue 20, defect 2: no secret is readable in the store's files, on either backend. */
export const secretsAtRestArea: ReliabilityArea = {
  name: 'secrets-at-rest',
  description: 'vK8s Secrets and a config secret field written through the API, every file of the store (SQLite database, WAL, SHM; etcd\'s data folder) scanned for their plaintext and base64: 0 hits',
  async run(scale, progress): Promise<AreaReport> {
    const count = SECRETS[scale];
    const runs: BackendRun[] = [];
    runs.push(await runBackend('sqlite', undefined, (home) => sqliteStoreFiles(join(home, 'store', 'edgeplane.db')), count, progress));
    const etcd = await EtcdTestServer.create();
    try {
      runs.push(await runBackend('etcd', { backend: 'etcd', endpoints: [etcd.endpoint] }, () => [etcd.dataDir], count, progress));
    } finally {
      await etcd.stop();
    }
    const failures: string[] = [];
    for (const run of runs) {
      if (run.hits > 0) failures.push(`${run.backend}: ${run.hits} occurrences of secret values in the store files`);
      if (run.readBack !== run.secrets) failures.push(`${run.backend}: ${run.readBack} of ${run.secrets} secrets read back through the API`);
      if (run.controlHits === 0) failures.push(`${run.backend}: the ConfigMaps' values were not found either: the scan did not read the store's files`);
    }
    return {
      ok: failures.length === 0,
      failures,
      markdown: [
        '| backend | secrets written | read back | config secret fields | files scanned | bytes scanned | secret hits | control hits (ConfigMaps, in the clear) | seconds |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
        ...runs.map((r) => `| ${r.backend} | ${r.secrets} | ${r.readBack} | 1 | ${r.files} | ${r.bytes} | ${r.hits} | ${r.controlHits} | ${r.seconds.toFixed(1)} |`),
        '',
        `Each secret has a unique value in \`data\` and another in \`stringData\`; the needles are a 24-byte tag every value starts with and its base64 at the three alignments. Scale: ${count} secrets per backend.`,
      ],
    };
  },
};
