import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openMemoryStore } from './memory/index.js';
import { PrefixCache } from './prefix-cache.js';
import { eventually } from './testing/watch-helpers.js';


describe('prefix cache', () => {
  it('mirrors a prefix by list-then-watch, sees creates, updates and deletes, and ignores other prefixes', async () => {
    const store = openMemoryStore();
    await store.create('/c/a', '1');
    await store.create('/other/x', 'x');
    const cache = new PrefixCache(store, '/c/');
    assert.equal(cache.lookup('/c/a').state, 'unsynced');
    await cache.start();
    const a = cache.lookup('/c/a');
    assert.ok(a.state === 'present' && a.kv.value === '1');
    const b = await store.create('/c/b', '2');
    await eventually(() => cache.lookup('/c/b').state === 'present', 'the create');
    await store.update('/c/b', '3', b.modRevision);
    await eventually(() => { const l = cache.lookup('/c/b'); return l.state === 'present' && l.kv.value === '3'; }, 'the update');
    await store.delete('/c/a');
    await eventually(() => cache.lookup('/c/a').state === 'absent', 'the delete');
    assert.equal(cache.lookup('/other/x').state, 'absent');
    assert.equal((await cache.get('/other/x'))?.value, 'x', 'a miss falls back to the store');
    cache.stop();
    await store.close();
  });

  it('applies this process\'s writes at once and never goes back to an older value', async () => {
    const store = openMemoryStore();
    const cache = new PrefixCache(store, '/c/');
    await cache.start();
    const kv = await store.create('/c/k', 'new');
    cache.observe({ kv });
    assert.deepEqual(cache.lookup('/c/k'), { state: 'present', kv });
    cache.observe({ kv: { ...kv, value: 'old', modRevision: kv.modRevision - 1 } });
    const l = cache.lookup('/c/k');
    assert.ok(l.state === 'present' && l.kv.value === 'new');
    const deleted = await store.delete('/c/k');
    cache.observe({ deleted: '/c/k', revision: deleted.revision });
    assert.equal(cache.lookup('/c/k').state, 'absent');
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(cache.lookup('/c/k').state, 'absent', 'the late ADDED event must not resurrect it');
    cache.stop();
    await store.close();
  });

  it('relists after its watch falls below a compaction', async () => {
    const store = openMemoryStore({ maxWatchQueue: 2 });
    const cache = new PrefixCache(store, '/c/');
    await cache.start();
    let kv = await store.create('/c/k', '0');
    for (let i = 1; i < 50; i++) kv = await store.update('/c/k', String(i), kv.modRevision);
    await store.compact(kv.modRevision);
    await store.create('/c/after', 'x');
    await eventually(() => { const l = cache.lookup('/c/k'); return l.state === 'present' && l.kv.value === '49' && cache.lookup('/c/after').state === 'present'; }, 'the relist');
    cache.stop();
    await store.close();
  });

  it('lists the keys under a prefix in key order, as keys come and go', async () => {
    const store = openMemoryStore();
    for (const key of ['/c/b/2', '/c/a/1', '/c/b/1', '/c/c/1']) await store.create(key, 'v');
    const cache = new PrefixCache(store, '/c/');
    await cache.start();
    const keys = (prefix?: string) => cache.items(prefix).map((kv) => kv.key);
    assert.deepEqual(keys(), ['/c/a/1', '/c/b/1', '/c/b/2', '/c/c/1']);
    assert.deepEqual(keys('/c/b/'), ['/c/b/1', '/c/b/2']);
    cache.observe({ kv: await store.create('/c/b/15', 'v') });
    cache.observe({ kv: await store.create('/c/0', 'v') });
    const deleted = await store.delete('/c/b/1');
    cache.observe({ deleted: '/c/b/1', revision: deleted.revision });
    assert.deepEqual(keys('/c/b/'), ['/c/b/15', '/c/b/2']);
    assert.deepEqual(keys(), ['/c/0', '/c/a/1', '/c/b/15', '/c/b/2', '/c/c/1']);
    assert.deepEqual(keys('/c/d/'), []);
    assert.deepEqual(keys(), [...keys()].sort());
    cache.stop();
    await store.close();
  });
});
