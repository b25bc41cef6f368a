import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { toolPath } from '../../src/testing/tools.js';
import { clusterWithKubeconfig, type ClusterCredentials } from './support/cluster-credentials.js';
import { httpsRequest, startServer, type ServerProcess } from './support/server-process.js';
import { waitFor } from './support/wait-for.js';

/** Fills the file system of `path` (a file there, written until ENOSPC). */
function fill(path: string): void {
  const fd = openSync(path, 'w');
  const chunk = Buffer.alloc(64 * 1024, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    closeSync(fd);
  }
}

/**
 * A real server whose SQLite store lives on a small tmpfs (`<home>/store`), filled until writes
 * fail, then freed: the full disk is named in the log, in /readyz and in the refused writes'
 * answers (vK8s and configuration API), and nothing of a refused write is stored.
 */
describe('a full disk under the store (SQLite on a small tmpfs)', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-full-disk-'));
  const home = join(root, 'home');
  const storeDir = join(home, 'store');
  const filler = join(storeDir, 'filler');
  let mounted = false;
  let server: ServerProcess | undefined;
  let cluster: ClusterCredentials;
  let ca = '';
  let token = '';
  const vk8s = (method: string, path: string, body?: unknown) =>
    httpsRequest(`${cluster.server}${path}`, cluster.ca, {
      method,
      cert: cluster.cert,
      key: cluster.key,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });
  const configMap = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(256 * 1024) } });
  const readyz = () => httpsRequest(`${server?.url ?? ''}/readyz?verbose`, ca);

  before(async () => {
    mkdirSync(storeDir, { recursive: true, mode: 0o700 });
    execFileSync(toolPath('mount'), ['-t', 'tmpfs', '-o', 'size=16m,mode=0700', 'tmpfs', storeDir]);
    mounted = true;
    server = await startServer(home);
    cluster = clusterWithKubeconfig(home, root, 'default', 'vk1');
    ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    token = readFileSync(join(home, 'api-token'), 'utf8').trim();
  });

  after(async () => {
    await server?.stop('SIGTERM');
    if (mounted) execFileSync(toolPath('umount'), [storeDir]);
    rmSync(root, { recursive: true, force: true });
  });

  it('refused writes say the storage is full (507, in each API\'s format), /readyz fails store-writable, one log line names the file and the cause; freed, all recovers and nothing partial was stored', async () => {
    assert.equal((await readyz()).status, 200);
    fill(filler);
    // The WAL may still hold room for a few writes: write until the storage refuses one.
    let refused: { name: string; status: number; body: string } | undefined;
    for (let i = 0; i < 64 && refused === undefined; i++) {
      const name = `cm-${i}`;
      const answer = await vk8s('POST', '/api/v1/namespaces/default/configmaps', configMap(name));
      if (answer.status !== 201) refused = { name, status: answer.status, body: answer.body };
    }
    assert.ok(refused !== undefined, 'a write was refused once the disk was full');
    assert.equal(refused.status, 507, refused.body);
    const status = JSON.parse(refused.body) as { kind: string; code: number; reason: string; message: string };
    assert.deepEqual([status.kind, status.code, status.reason], ['Status', 507, 'ServiceUnavailable']);
    assert.match(status.message, /storage is full.*(SQLITE_FULL|disk is full)/, status.message);

    // Another refused write, in the configuration API's format.
    const config = await httpsRequest(`${server?.url ?? ''}/api/config/namespaces/default/virtual_sites`, ca, {
      method: 'POST',
      headers: { authorization: `APIToken ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ metadata: { name: 'full', annotations: { pad: 'x'.repeat(200 * 1024) } }, spec: { site_type: 'CUSTOMER_EDGE', site_selector: { expressions: ['edge'] } } }),
    });
    assert.equal(config.status, 507, config.body);
    const configBody = config.json<{ code: number; message: string }>();
    assert.equal(configBody.code, 8, 'gRPC RESOURCE_EXHAUSTED');
    assert.match(configBody.message, /storage is full.*(SQLITE_FULL|disk is full)/);

    const ready = await readyz();
    assert.equal(ready.status, 500);
    assert.match(ready.body, /^\[-\]store-writable failed: reason withheld$/m, ready.body);
    const storePath = join(storeDir, 'edgeplane.db');
    const failLines = (): Array<Record<string, unknown>> => server?.logs.filter((l) => String(l['msg']).startsWith('store writes fail')) ?? [];
    await waitFor('the failure logged', () => Promise.resolve(failLines().length > 0 ? true : undefined));
    const named = failLines();
    assert.equal(named.length, 1, `one log line for the episode: ${JSON.stringify(named)}`);
    assert.ok(String(named[0]?.['msg']).includes(storePath) && /SQLITE_FULL|disk is full/.test(String(named[0]?.['cause'])), JSON.stringify(named[0]));

    rmSync(filler);
    await waitFor('/readyz ok again', async () => ((await readyz()).status === 200 ? true : undefined), { timeoutMs: 30_000 });
    // The line may still be in the pipe when /readyz answers.
    await waitFor('the recovery logged', () => Promise.resolve(server?.logs.some((l) => String(l['msg']).startsWith('store writes succeed again')) === true ? true : undefined));
    // Nothing of the refused write was stored; it can be made now.
    assert.equal((await vk8s('GET', `/api/v1/namespaces/default/configmaps/${refused.name}`)).status, 404);
    assert.equal((await vk8s('POST', '/api/v1/namespaces/default/configmaps', configMap(refused.name))).status, 201);
  });
});
