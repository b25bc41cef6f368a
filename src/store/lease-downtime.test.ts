import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openEtcdStore } from './etcd/index.js';
import { openSqliteStore } from './sqlite/index.js';
import { EtcdTestServer } from './testing/etcd-server.js';
import type { Store } from './types.js';

const TTL_SECONDS = 2;

/**
 * A lease whose store was down for longer than its TTL: the keys on it are still there once
 * the store serves again, and the lease can be kept alive (etcd's lessor Promote). Returns the
 * reopened store.
 */
async function leaseOutlivesDowntime(open: () => Store, down: (store: Store) => Promise<void>, up: () => Promise<void>): Promise<void> {
  const before = open();
  const lease = await before.grantLease(TTL_SECONDS);
  await before.create('/downtime/site', 'alive', { lease });
  await down(before);
  await sleep(TTL_SECONDS * 1000 + 1500);
  await up();
  const store = open();
  try {
    assert.equal((await store.get('/downtime/site'))?.value, 'alive', 'the key on the lease survived the downtime');
    assert.ok((await store.keepAliveLease(lease)) >= TTL_SECONDS, 'the lease is alive after the restart');
  } finally {
    await store.close();
  }
}

describe('store leases never count the store\'s own downtime', () => {
  it('sqlite: a store reopened after longer than a lease\'s TTL gives the lease its TTL again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeplane-lease-down-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'store.db');
    await leaseOutlivesDowntime(() => openSqliteStore({ path }), (store) => store.close(), () => Promise.resolve());
  });

  it('etcd 3.4: a lease outlives etcd killed (SIGKILL) for longer than its TTL and restarted', async () => {
    const server = await EtcdTestServer.create();
    after(() => server.stop());
    await leaseOutlivesDowntime(
      () => openEtcdStore({ endpoints: [server.endpoint] }),
      async (store) => {
        await server.kill();
        await store.close();
      },
      () => server.start(),
    );
  });
});
