import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { scanForNeedles, secretForms, sqliteStoreFiles } from '../../src/store/testing/at-rest-scan.js';
import { EtcdTestServer } from '../../src/store/testing/etcd-server.js';
import { EDGEPLANE_BIN, httpsRequest, startServer, type ServerProcess } from './support/server-process.js';

const BASE = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default';
const ACCESS = '/api/config/namespaces/default/secret_management_accesss';

interface Client {
  readonly url: string;
  readonly ca: string;
  readonly token: string;
}

async function call(c: Client, method: string, path: string, body?: unknown): Promise<{ status: number; body: string; json: Record<string, unknown> }> {
  const res = await httpsRequest(`${c.url}${path}`, c.ca, { method, headers: { authorization: `APIToken ${c.token}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: res.body, json: JSON.parse(res.body) as Record<string, unknown> };
}

/** A marker no store holds by chance (30 bytes: base64 without padding). */
const marker = (what: string): string => `${what}-${randomBytes(12).toString('hex')}`.padEnd(30, 'x').slice(0, 30);

/** Runs `edgeplane store re-encrypt` with `args`; resolves to its output. */
function reencrypt(home: string, args: string[]): string {
  const result = spawnSync(process.execPath, [EDGEPLANE_BIN, 'store', 're-encrypt', '--home', home, ...args], { encoding: 'utf8' });
  assert.equal(result.status, 0, `${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

interface Backend {
  readonly name: string;
  /** The server's and the re-encrypt command's store arguments. */
  storeArgs(): string[];
  /** Every file the backend keeps data in. */
  files(home: string): string[];
  close(): Promise<void>;
}

const homes: string[] = [];
after(() => {
  for (const home of homes) rmSync(home, { recursive: true, force: true });
});

function sqliteBackend(): Promise<Backend> {
  return Promise.resolve({ name: 'sqlite', storeArgs: () => [], files: (home) => sqliteStoreFiles(join(home, 'store', 'edgeplane.db')), close: () => Promise.resolve() });
}

async function etcdBackend(): Promise<Backend> {
  const etcd = await EtcdTestServer.create();
  return { name: 'etcd', storeArgs: () => ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint], files: () => [etcd.dataDir], close: () => etcd.stop() };
}

/**
 * Issue 20, defect 2: a vK8s Secret's data and a config object's secret field are not in any
 * file of the store (SQLite's database, WAL and shared memory; etcd's data folder), in
 * plaintext or base64, while a ConfigMap's data is (so the scan does see what is written);
 * they read back through the API; a new key-encryption key takes over with `edgeplane store
 * re-encrypt`, after which the old key can be dropped.
 */
for (const open of [sqliteBackend, etcdBackend]) {
  describe(`secrets at rest (${open === sqliteBackend ? 'sqlite' : 'etcd'})`, () => {
    it('are encrypted in the store files, read back, and move to a new key-encryption key', async () => {
      const backend = await open();
      const home = mkdtempSync(join(tmpdir(), 'edgeplane-at-rest-'));
      homes.push(home);
      let server: ServerProcess | undefined;
      try {
        server = await startServer(home, backend.storeArgs());
        const client = (s: ServerProcess): Client => ({ url: s.url, ca: readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), token: readFileSync(join(home, 'api-token'), 'utf8').trim() });
        let c = client(server);
        const secretData = marker('secret-data');
        const secretString = marker('secret-string');
        const vaultToken = marker('vault-token');
        const visible = marker('configmap');
        assert.equal((await call(c, 'POST', '/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: {} })).status, 200);
        const created = await call(c, 'POST', `${BASE}/secrets`, {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'db', labels: { app: 'db' } },
          data: { password: Buffer.from(secretData).toString('base64') },
          stringData: { token: secretString },
        });
        assert.equal(created.status, 201, created.body);
        assert.equal((await call(c, 'POST', `${BASE}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain' }, data: { value: visible } })).status, 201);
        const access = {
          metadata: { name: 'vault' },
          spec: { provider_name: 'vault', access_info: { server_endpoint: 'vault.example:8200' }, vault_auth_info: { token: { clear_secret_info: { url: `string:///${Buffer.from(vaultToken).toString('base64')}` } } } },
        };
        assert.equal((await call(c, 'POST', ACCESS, access)).status, 200);

        const readBack = async (): Promise<void> => {
          const secret = await call(c, 'GET', `${BASE}/secrets/db`);
          assert.equal(secret.status, 200, secret.body);
          const data = secret.json['data'] as Record<string, string>;
          assert.equal(Buffer.from(data['password'] ?? '', 'base64').toString(), secretData);
          assert.equal(Buffer.from(data['token'] ?? '', 'base64').toString(), secretString);
          const listed = await call(c, 'GET', `${BASE}/secrets?labelSelector=app%3Ddb`);
          assert.deepEqual((listed.json['items'] as Array<{ data: Record<string, string> }>).map((s) => s.data), [data]);
          const got = await call(c, 'GET', `${ACCESS}/vault`);
          assert.equal(got.status, 200, got.body);
          const url = ((((got.json['spec'] as Record<string, unknown>)['vault_auth_info'] as Record<string, unknown>)['token'] as Record<string, unknown>)['clear_secret_info'] as { url: string }).url;
          assert.equal(Buffer.from(url.slice('string:///'.length), 'base64').toString(), vaultToken);
        };
        await readBack();

        const scan = (): ReturnType<typeof scanForNeedles> => scanForNeedles(backend.files(home), [secretData, secretString, vaultToken].flatMap(secretForms));
        const found = scan();
        assert.ok(found.bytes > 0 && found.files > 0, `nothing scanned: ${JSON.stringify(found)}`);
        assert.deepEqual(found.hits, [], 'a secret is readable in the store files');
        // The scan does see what is written in the clear.
        assert.ok(scanForNeedles(backend.files(home), [visible]).hits.length > 0, 'the ConfigMap\'s value is not in the store files: the scan reads the wrong files');

        // Rotation: the server gets a new key and the old one as previous, everything is re-encrypted, the old key goes.
        const oldKey = join(home, 'keys', 'identity.kek');
        const newKey = join(home, 'new.kek');
        writeFileSync(newKey, randomBytes(32).toString('hex'), { mode: 0o600 });
        await server.stop();
        server = await startServer(home, [...backend.storeArgs(), '--identity-kek-file', newKey, '--previous-kek-file', oldKey]);
        c = client(server);
        await readBack();
        const first = reencrypt(home, [...backend.storeArgs(), '--identity-kek-file', newKey, '--previous-kek-file', oldKey]);
        assert.match(first, /vK8s secrets: 1 read, 1 re-encrypted/);
        assert.match(first, /config secret fields \(secret_management_access\): \d+ read, 1 re-encrypted/);
        assert.match(first, /identity keys: \d+ read, [1-9]\d* re-encrypted/);
        assert.match(first, /done in .* s: \d+ of \d+ records re-encrypted; everything is under key [0-9a-f]{16}/);
        await readBack();
        // A second pass finds nothing left to do.
        assert.match(reencrypt(home, [...backend.storeArgs(), '--identity-kek-file', newKey, '--previous-kek-file', oldKey]), /done in .* s: 0 of \d+ records re-encrypted/);

        await server.stop();
        rmSync(oldKey);
        server = await startServer(home, [...backend.storeArgs(), '--identity-kek-file', newKey]);
        c = client(server);
        await readBack();
        assert.equal(server.logs.some((l) => l['msg'] === 'the identity service cannot open its keys; its API answers 503 on this server (give every server the same --identity-kek-file)'), false, 'the identity keys did not move to the new key');
        assert.deepEqual(scan().hits, []);
      } finally {
        await server?.stop();
        await backend.close();
      }
    });
  });
}

describe('edgeplane store re-encrypt', () => {
  it('explains itself with --help, and refuses a home without a store', () => {
    const help = spawnSync(process.execPath, [EDGEPLANE_BIN, 'store', 're-encrypt', '--help'], { encoding: 'utf8' });
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /--previous-kek-file <file>/);
    assert.match(help.stdout, /Rotating the key-encryption key:/);
    const empty = mkdtempSync(join(tmpdir(), 'edgeplane-at-rest-empty-'));
    homes.push(empty);
    const refused = spawnSync(process.execPath, [EDGEPLANE_BIN, 'store', 're-encrypt', '--home', empty], { encoding: 'utf8' });
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /there is no store at .*edgeplane\.db/);
  });
});
