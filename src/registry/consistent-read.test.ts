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
import { listObjects } from './list.js';
import { ObjectCodec } from './object-codec.js';
import type { Strategy } from './strategy.js';

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

  it('consistent list is served by the cache once it has caught up, with every write made before it', async () => {
    const memory = openMemoryStore();
    let lists = 0;
    const store: Store = Object.assign(Object.create(memory) as Store, {
      list: (...args: Parameters<Store['list']>) => {
        lists++;
        return memory.list(...args);
      },
    });
    const cache = new WatchCache(store, '/r/');
    await cache.start();
    lists = 0;
    const source = { store, cache, codec: new ObjectCodec(), strategy: { selectableFields: () => ({}) } as unknown as Strategy, prefix: '/r/c1/', ref: { resource: 'configmaps', group: '' } };
    const object = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
    for (const name of ['b', 'a']) await store.create(`/r/c1/${name}`, object(name));
    await store.create('/r/c2/x', object('x'));
    const listed = await listObjects(source, {});
    assert.deepEqual(listed.items.map((o) => o.metadata.name), ['a', 'b']);
    assert.equal(listed.resourceVersion, String(await store.currentRevision()));
    assert.deepEqual(listed.stored?.map((kv) => kv.key), ['/r/c1/a', '/r/c1/b']);
    assert.equal(lists, 0, 'no store list');
    const paged = await listObjects(source, { limit: 1 });
    assert.equal(paged.stored, undefined, 'a paged list reads the store');
    assert.equal(lists, 1);
    cache.stop();
    await store.close();
  });
});
