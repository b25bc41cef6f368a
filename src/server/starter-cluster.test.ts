import assert from 'node:assert/strict';
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startConfigHarness, type ConfigHarness } from './testing/config-harness.js';
import { createLogger } from '../observability/logger.js';
import { ensureStarterCluster } from './starter-cluster.js';

type Kubeconfig = { clusters: Array<{ cluster: { server: string } }>; users: Array<{ name: string; user: Record<string, string> }> };

describe('ensureStarterCluster (the quick start\'s virtual cluster and kubeconfig)', () => {
  let harness: ConfigHarness;
  const logger = createLogger({ level: 'silent' });
  const day = 24 * 3600 * 1000;
  const read = (): Kubeconfig => parse(readFileSync(join(harness.home, 'kubeconfig'), 'utf8')) as Kubeconfig;
  before(async () => {
    harness = await startConfigHarness({ controllers: [] });
  });
  after(() => harness.close());

  it('first: creates default/vk8s over the regional edges and writes a 0600 kubeconfig for it', async () => {
    const result = await ensureStarterCluster({ home: harness.home, url: harness.url, logger });
    assert.deepEqual([result.outcome, result.createdCluster, result.kubeconfig], ['written', true, join(harness.home, 'kubeconfig')]);
    assert.equal(statSync(result.kubeconfig).mode & 0o777, 0o600);
    assert.equal(read().clusters[0]?.cluster.server, `${harness.url}/api/vk8s/namespaces/default/vk8s`);
    const vk8s = (await harness.call('GET', '/api/config/namespaces/default/virtual_k8ss/vk8s')).json<{ spec: { vsite_refs: Array<Record<string, string>> } }>();
    assert.deepEqual(
      vk8s.spec.vsite_refs.map((r) => `${r['namespace']}/${r['name']}`),
      ['svc-io-shared/all-regional-edges'],
    );
  });

  it('again: keeps the file byte for byte', async () => {
    const before = readFileSync(join(harness.home, 'kubeconfig'), 'utf8');
    const result = await ensureStarterCluster({ home: harness.home, url: harness.url, logger });
    assert.equal(result.outcome, 'kept');
    assert.equal(readFileSync(join(harness.home, 'kubeconfig'), 'utf8'), before);
  });

  it('another URL: only the server changes', async () => {
    const before = read();
    const result = await ensureStarterCluster({ home: harness.home, url: 'https://127.0.0.1:1', logger });
    assert.equal(result.outcome, 'updated');
    assert.equal(read().clusters[0]?.cluster.server, 'https://127.0.0.1:1/api/vk8s/namespaces/default/vk8s');
    assert.deepEqual(read().users, before.users);
    assert.equal((await ensureStarterCluster({ home: harness.home, url: harness.url, logger })).outcome, 'updated');
  });

  it('near its expiry (90 days): a new credential replaces it; the cluster is not made again', async () => {
    const before = read();
    const result = await ensureStarterCluster({ home: harness.home, url: harness.url, logger, now: () => Date.now() + 85 * day });
    assert.deepEqual([result.outcome, result.createdCluster], ['renewed', false]);
    assert.notDeepEqual(read().users, before.users);
  });

  it('missing file, existing cluster: a kubeconfig is issued for the cluster that is there', async () => {
    renameSync(join(harness.home, 'kubeconfig'), join(harness.home, 'kubeconfig.old'));
    const result = await ensureStarterCluster({ home: harness.home, url: harness.url, logger });
    assert.deepEqual([result.outcome, result.createdCluster], ['written', false]);
  });

  it('a file it did not write, or no admin token: nothing is touched', async () => {
    writeFileSync(join(harness.home, 'kubeconfig'), 'not: mine\n');
    assert.equal((await ensureStarterCluster({ home: harness.home, url: harness.url, logger })).outcome, 'foreign');
    assert.equal(readFileSync(join(harness.home, 'kubeconfig'), 'utf8'), 'not: mine\n');
    renameSync(join(harness.home, 'kubeconfig.old'), join(harness.home, 'kubeconfig'));
    renameSync(join(harness.home, 'api-token'), join(harness.home, 'api-token.away'));
    try {
      const result = await ensureStarterCluster({ home: harness.home, url: harness.url, logger, now: () => Date.now() + 89 * day });
      assert.equal(result.outcome, 'no-token');
    } finally {
      renameSync(join(harness.home, 'api-token.away'), join(harness.home, 'api-token'));
    }
  });
});
