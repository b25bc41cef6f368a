import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { StatusError } from '../apimachinery/errors/status-error.js';
import { toConfigError } from '../config/errors.js';
import { createLogger } from '../observability/logger.js';
import { storeErrorToStatus } from '../registry/store-errors.js';
import { fromEtcdError } from './etcd/etcd-errors.js';
import { outOfSpaceCause, StoreError, toStoreError } from './errors.js';
import { openMemoryStore } from './memory/index.js';
import type { Store } from './types.js';
import { trackStoreWrites } from './write-health.js';

/** A memory store whose writes fail as a full disk fails them while `full` is set. */
function fillableStore(): { store: Store; full: { on: boolean } } {
  const inner = openMemoryStore();
  const full = { on: false };
  const refuse = <T>(write: () => Promise<T>): Promise<T> => (full.on ? Promise.reject(toStoreError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'sqlite write failed')) : write());
  return {
    full,
    store: {
      ...inner,
      get: (key) => inner.get(key),
      list: (prefix, options) => inner.list(prefix, options),
      watch: (prefix, options) => inner.watch(prefix, options),
      currentRevision: () => inner.currentRevision(),
      compactedRevision: () => inner.compactedRevision(),
      compact: (revision) => inner.compact(revision),
      create: (key, value, options) => refuse(() => inner.create(key, value, options)),
      update: (key, value, revision, options) => refuse(() => inner.update(key, value, revision, options)),
      delete: (key, revision) => refuse(() => inner.delete(key, revision)),
      grantLease: (ttl) => refuse(() => inner.grantLease(ttl)),
      keepAliveLease: (lease) => refuse(() => inner.keepAliveLease(lease)),
      revokeLease: (lease) => refuse(() => inner.revokeLease(lease)),
      close: () => inner.close(),
    },
  };
}

describe('store write health', () => {
  it('the backends\' words for a lack of space become the store error\'s cause', () => {
    const sqlite = toStoreError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'sqlite write failed (/x/edgeplane.db)');
    assert.equal(sqlite.code, 'Unavailable');
    assert.equal(sqlite.details.outOfSpace, 'SQLITE_FULL: database or disk is full');
    assert.equal(toStoreError(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }), 'w').details.outOfSpace, 'ENOSPC: ENOSPC: no space left on device, write');
    assert.equal(fromEtcdError(new Error('etcdserver: mvcc: database space exceeded'), 'create').details.outOfSpace, 'etcdserver: mvcc: database space exceeded');
    assert.equal(outOfSpaceCause(new Error('SQLITE_BUSY: database is locked')), undefined);
    assert.equal(toStoreError(new Error('connection refused'), 'w').details.outOfSpace, undefined);
    assert.equal(outOfSpaceCause(StoreError.conflict('/k', 1, 2)), undefined);
  });

  it('writes refused for lack of space: logged once per episode, store-writable fails until a write succeeds again', async () => {
    const { store, full } = fillableStore();
    const out = new PassThrough();
    const lines: Array<Record<string, unknown>> = [];
    out.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>)));
    const writes = trackStoreWrites(store, { where: 'sqlite /x/edgeplane.db', logger: createLogger({ destination: out, format: 'json' }) });
    await writes.check.run();
    full.on = true;
    for (let i = 0; i < 3; i++) await assert.rejects(writes.store.create(`/k${i}`, 'v'), (error: unknown) => error instanceof StoreError && error.details.outOfSpace !== undefined);
    await assert.rejects(writes.check.run(), /sqlite \/x\/edgeplane.db is out of space: SQLITE_FULL/);
    full.on = false;
    await writes.check.run(); // its own small write succeeds: writable again
    await new Promise((resolve) => setImmediate(resolve));
    const messages = lines.map((l) => String(l['msg']));
    assert.deepEqual(messages, ['store writes fail: sqlite /x/edgeplane.db is out of space (SQLITE_FULL: database or disk is full)', 'store writes succeed again: sqlite /x/edgeplane.db']);
    assert.equal(lines[0]?.['cause'], 'SQLITE_FULL: database or disk is full');
    assert.equal(await writes.store.get('/k0'), undefined, 'nothing of the refused writes');
    await writes.store.close();
  });

  it('each API answers a write refused for lack of space in its own format: 507, naming the cause', () => {
    const full = toStoreError(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }), 'sqlite write failed');
    const status = storeErrorToStatus(full, { resource: 'configmaps', group: '' }, 'cm');
    assert.ok(status instanceof StatusError);
    assert.deepEqual([status.code, status.reason], [507, 'ServiceUnavailable']);
    assert.match(String(status.toStatus()['message']), /the storage is full.*SQLITE_FULL: database or disk is full/);
    const config = toConfigError(full);
    assert.deepEqual([config.httpStatus, config.toBody().code], [507, 8]);
    assert.match(config.message, /the storage is full.*SQLITE_FULL/);
    const down = storeErrorToStatus(StoreError.unavailable('etcd: connection refused'), { resource: 'configmaps', group: '' }, 'cm');
    assert.ok(down instanceof StatusError);
    assert.equal(down.code, 503, 'other outages of the storage stay 503');
    assert.equal(toConfigError(StoreError.unavailable('x')).httpStatus, 503);
  });
});
