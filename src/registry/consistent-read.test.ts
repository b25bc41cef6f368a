import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openMemoryStore } from '../store/memory/index.js';
import { openSqliteStore } from '../store/sqlite/index.js';
import type { KeyValue, Store } from '../store/types.js';
import { WatchCache } from '../store/watch-cache.js';
import { readConsistent } from './consistent-read.js';

/** A store whose `get` is counted: tells whether a read was served by the cache. */
function countingGets(store: Store): { store: Store; gets: () => number } {
  let gets = 0;
  const counted: Store = Object.assign(Object.create(store) as Store, {
    get: (key: string): Promise<KeyValue | undefined> => {
      gets++;
      return store.get(key);
    },
  });
  return { store: counted, gets: () => gets };
}

describe('consistent read from the watch cache', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-consistent-read-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('consistent read sees a write made just before it, without reading the store', async () => {
    const { store, gets } = countingGets(openMemoryStore());
    const cache = new WatchCache(store, '/r/');
    await cache.start();
    for (let i = 0; i < 20; i++) {
      const written = await store.create(`/r/k${i}`, String(i));
      // Writes outside the cache's prefix move the store's revision too: progress covers them.
      await store.create(`/other/k${i}`, 'x');
      assert.deepEqual(await readConsistent({ store, cache }, `/r/k${i}`), written);
    }
    const deleted = await store.delete('/r/k3');
    assert.ok(deleted.revision > 0);
    assert.equal(await readConsistent({ store, cache }, '/r/k3'), undefined);
    assert.equal(gets(), 0);
    cache.stop();
    await store.close();
  });

  it('consistent read sees what another process wrote to the same SQLite file a moment ago', async () => {
    const path = join(dir, 'shared.db');
    const { store: mine, gets } = countingGets(openSqliteStore({ path, pollIntervalMs: 60_000 }));
    const theirs = openSqliteStore({ path, pollIntervalMs: 60_000 });
    const cache = new WatchCache(mine, '/r/');
    await cache.start();
    const first = await theirs.create('/r/a', '1');
    assert.deepEqual(await readConsistent({ store: mine, cache }, '/r/a'), first);
    const second = await theirs.update('/r/a', '2', first.modRevision);
    assert.deepEqual(await readConsistent({ store: mine, cache }, '/r/a'), second);
    assert.equal(gets(), 0);
    cache.stop();
    await theirs.close();
    await mine.close();
  });

  it('consistent read goes to the store while the cache has not listed, or when it cannot catch up in time', async () => {
    const { store, gets } = countingGets(openMemoryStore());
    const written = await store.create('/r/a', '1');
    const idle = new WatchCache(store, '/r/');
    assert.deepEqual(await readConsistent({ store, cache: idle }, '/r/a'), written);
    assert.equal(gets(), 1);
    const cache = new WatchCache(store, '/r/');
    await cache.start();
    cache.stop();
    const later = await store.update('/r/a', '2', written.modRevision);
    assert.deepEqual(await readConsistent({ store, cache, waitLimit: () => AbortSignal.abort() }, '/r/a'), later);
    assert.equal(gets(), 2);
    await store.close();
  });
});
