import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequestRaw } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { EtcdTestServer } from '../../src/store/testing/etcd-server.js';
import { httpsRequest, startServer, type ServerProcess } from './support/server-process.js';

const CM = '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/configmaps';

interface Client {
  readonly url: string;
  readonly ca: string;
  readonly token: string;
}

function clientOf(server: ServerProcess, home: string, tokenHome = home): Client {
  return { url: server.url, ca: readFileSync(join(home, 'pki', 'ca.crt'), 'utf8'), token: readFileSync(join(tokenHome, 'api-token'), 'utf8').trim() };
}

async function call(c: Client, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await httpsRequest(`${c.url}${path}`, c.ca, { method, headers: { authorization: `APIToken ${c.token}`, 'content-type': contentType }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, json: JSON.parse(res.body) as Record<string, unknown> };
}

/** The names of the first `count` watch events (type and object name). */
function watch(c: Client, path: string, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const seen: string[] = [];
    const req = httpsRequestRaw(`${c.url}${path}`, { ca: c.ca, headers: { authorization: `APIToken ${c.token}` } }, (res) => {
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
          const event = JSON.parse(buffer.slice(0, i)) as { type: string; object: { metadata: { name?: string } } };
          buffer = buffer.slice(i + 1);
          seen.push(`${event.type} ${event.object.metadata.name ?? ''}`);
          if (seen.length === count) {
            req.destroy();
            resolve(seen);
          }
        }
      });
      res.on('end', () => resolve(seen));
    });
    req.on('error', (error) => (seen.length === count ? undefined : reject(error)));
    req.end();
  });
}

const configMap = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: 'v' } });

/** What every backend must do for the virtual cluster API: writes, reads, pages, patches and watches. */
async function exerciseCluster(writer: Client, watcher: Client): Promise<void> {
  assert.equal((await call(writer, 'POST', '/api/config/namespaces/default/virtual_k8ss', { metadata: { name: 'vk1' }, spec: {} })).status, 200);
  const created = await call(writer, 'POST', CM, configMap('a'));
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const rv = (created.json.metadata as { resourceVersion: string }).resourceVersion;
  const events = watch(watcher, `${CM}?watch=true&resourceVersion=${rv}&timeoutSeconds=20`, 3);
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await call(writer, 'POST', CM, configMap('b'))).status, 201);
  const patched = await call(writer, 'PATCH', `${CM}/a`, { data: { k: 'w' } }, 'application/merge-patch+json');
  assert.equal(patched.status, 200);
  assert.equal((await call(writer, 'DELETE', `${CM}/b`)).status, 200);
  assert.deepEqual(await events, ['ADDED b', 'MODIFIED a', 'DELETED b']);
  const page = await call(watcher, 'GET', `${CM}?limit=1`);
  assert.deepEqual((page.json.items as Array<{ metadata: { name: string } }>).map((i) => i.metadata.name), ['a']);
  assert.deepEqual((await call(watcher, 'GET', `${CM}/a`)).json.data, { k: 'w' });
}

describe('the virtual cluster API on every store backend (real server processes)', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-vk8s-backends-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('works on SQLite', async () => {
    const home = join(root, 'sqlite');
    const server = await startServer(home);
    try {
      await exerciseCluster(clientOf(server, home), clientOf(server, home));
    } finally {
      assert.equal(await server.stop(), 0);
    }
  });

  describe('on etcd', () => {
    let etcd: EtcdTestServer;
    before(async () => {
      etcd = await EtcdTestServer.create();
    });
    after(() => etcd?.stop());

    it('two servers on one etcd serve one cluster: a write on one reaches a watch on the other', async () => {
      const homeA = join(root, 'etcd-a');
      const homeB = join(root, 'etcd-b');
      // Servers over one store share its keys (the platform CA, the identity's): one operator key-encryption key.
      const kek = join(root, 'etcd.kek');
      writeFileSync(kek, 'ab'.repeat(32) + '\n', { mode: 0o600 });
      const args = ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint, '--identity-kek-file', kek];
      const a = await startServer(homeA, args);
      const b = await startServer(homeB, args);
      try {
        // Both servers share the tenants, tokens and platform CA in etcd; each has its own serving certificate.
        await exerciseCluster(clientOf(a, homeA), clientOf(b, homeB, homeA));
      } finally {
        assert.equal(await a.stop('SIGTERM'), 0);
        assert.equal(await b.stop('SIGTERM'), 0);
      }
    });
  });
});
