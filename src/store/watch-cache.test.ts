import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoreError, StoreError } from './errors.js';
import { MAX_EVENTS_PER_VISIT, type SweepPass } from './fan-out-sweep.js';
import { openMemoryStore } from './memory/index.js';
import { eventually, takeEvents } from './testing/watch-helpers.js';
import type { WatchEvent } from './types.js';
import { WatchCache, type WatchSink } from './watch-cache.js';

describe('watch cache', () => {
  it('serves lists from memory at its revision, consistent with the store', async () => {
    const store = openMemoryStore();
    await store.create('/r/pods/b', '2');
    const cache = new WatchCache(store, '/r/pods/');
    await cache.start();
    await store.create('/r/pods/a', '1');
    await store.create('/r/other/x', 'x');
    const current = await store.currentRevision();
    await eventually(() => cache.revision >= current - 1);
    const listed = cache.list();
    assert.deepEqual(listed.items.map((kv) => kv.key), ['/r/pods/a', '/r/pods/b']);
    assert.deepEqual(listed.items, (await store.list('/r/pods/')).items);
    cache.stop();
    await store.close();
  });

  it('fans one store watch out to many watchers, each seeing every event once and in order', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/');
    await cache.start();
    const from = cache.revision;
    const watchers = Array.from({ length: 100 }, () => cache.watch('/r/', { fromRevision: from }));
    const writes = [];
    for (let i = 0; i < 50; i++) writes.push((await store.create(`/r/k${i}`, String(i))).modRevision);
    for (const watcher of watchers) assert.deepEqual((await takeEvents(watcher, 50)).map((e) => e.revision), writes);
    assert.equal(cache.watcherCount, 100);
    for (const watcher of watchers) await watcher.return?.();
    assert.equal(cache.watcherCount, 0);
    cache.stop();
    await store.close();
  });

  it('resumes a watch from a recent revision by replaying what it missed, then live, filtered by prefix', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/');
    await cache.start();
    const a = await store.create('/r/ns1/a', '1');
    await store.create('/r/ns2/b', '1');
    const a2 = await store.update('/r/ns1/a', '2', a.modRevision);
    await eventually(() => cache.revision >= a2.modRevision);
    const watcher = cache.watch('/r/ns1/', { fromRevision: a.modRevision - 1 });
    const replayed = await takeEvents(watcher, 2);
    assert.deepEqual(replayed.map((e) => [e.type, e.revision]), [['ADDED', a.modRevision], ['MODIFIED', a2.modRevision]]);
    const d = await store.delete('/r/ns1/a');
    const [live] = await takeEvents(watcher, 1);
    assert.deepEqual([live?.type, live?.revision], ['DELETED', d.revision]);
    await watcher.return?.();
    cache.stop();
    await store.close();
  });

  it('fails a watch from before its window with Compacted (HTTP 410 for clients)', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/', { history: 5 });
    await cache.start();
    const first = await store.create('/r/k', '0');
    let kv = first;
    for (let i = 1; i < 20; i++) kv = await store.update('/r/k', String(i), kv.modRevision);
    await eventually(() => cache.revision >= kv.modRevision);
    await assert.rejects(cache.watch('/r/', { fromRevision: first.modRevision }).next(), (e: unknown) => isStoreError(e, 'Compacted'));
    const recent = cache.watch('/r/', { fromRevision: kv.modRevision - 3 });
    assert.equal((await takeEvents(recent, 3)).length, 3);
    await recent.return?.();
    cache.stop();
    await store.close();
  });

  it('closes a watcher that does not keep up, without holding up the others', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/', { maxQueue: 10 });
    await cache.start();
    const from = cache.revision;
    const slow = cache.watch('/r/', { fromRevision: from });
    const fast = cache.watch('/r/', { fromRevision: from });
    const fastEvents: number[] = [];
    const reading = (async () => {
      for await (const event of fast) {
        fastEvents.push(event.revision);
        if (fastEvents.length === 30) break;
      }
    })();
    for (let i = 0; i < 30; i++) await store.create(`/r/k${i}`, 'x');
    await reading;
    assert.equal(fastEvents.length, 30);
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const event of slow) seen.push(event.revision);
      })(),
      (e: unknown) => isStoreError(e, 'Unavailable') && /fell more than 10 events behind/.test((e as Error).message),
    );
    assert.equal(seen.length, 10, 'the queued events are delivered before the error');
    cache.stop();
    await store.close();
  });
});

/** An ADDED event at `revision` as the cache's store watch would hand it over (for driving `changed` directly). */
function addedAt(revision: number): WatchEvent {
  const kv = { key: `/r/k${revision}`, value: String(revision), createRevision: revision, modRevision: revision };
  return { type: 'ADDED', key: kv.key, kv, revision };
}

/** A sink recording what the cache pushes, with a backlog the test sets. */
function recordingSink(): WatchSink & { events: number[]; groups: number[][]; ended: StoreError | 'stopped' | undefined; backlog: number } {
  let group: number[] = [];
  return {
    events: [],
    groups: [],
    ended: undefined,
    backlog: 0,
    event(event) {
      this.events.push(event.revision);
      group.push(event.revision);
    },
    flush() {
      this.groups.push(group);
      group = [];
    },
    end(error) {
      this.ended = error ?? 'stopped';
    },
  };
}

describe('watch cache subscriptions', () => {
  it('subscribe pushes recent events before it returns, and live ones in groups, one per commit', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/');
    await cache.start();
    const a = await store.create('/r/a', '1');
    const b = await store.create('/r/b', '1');
    await eventually(() => cache.revision >= b.modRevision);
    const sink = recordingSink();
    const subscription = cache.subscribe('/r/', a.modRevision - 1, sink);
    assert.deepEqual(sink.groups, [[a.modRevision, b.modRevision]]);
    const [c, d] = await Promise.all([store.create('/r/c', '1'), store.create('/r/d', '1')]);
    await eventually(() => sink.events.length === 4, 'the live events');
    assert.deepEqual(sink.groups.slice(1), [[c.modRevision, d.modRevision]], 'one commit, one group');
    subscription.close();
    const e = await store.create('/r/e', '1');
    await eventually(() => cache.revision >= e.modRevision);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(sink.events.length, 4, 'no event after close');
    assert.equal(sink.ended, undefined, 'close does not call end');
    cache.stop();
    await store.close();
  });

  it('subscribe ends a watch from before the window with Compacted before it returns', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/', { history: 2 });
    await cache.start();
    const first = await store.create('/r/k', '0');
    let kv = first;
    for (let i = 1; i < 5; i++) kv = await store.update('/r/k', String(i), kv.modRevision);
    await eventually(() => cache.revision >= kv.modRevision);
    const sink = recordingSink();
    cache.subscribe('/r/', first.modRevision, sink);
    assert.ok(sink.ended instanceof StoreError && sink.ended.code === 'Compacted');
    assert.equal(cache.watcherCount, 0);
    cache.stop();
    await store.close();
  });

  it('subscribe ends a watch whose sink backlog reached maxQueue, and a throwing sink, without holding up the others', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/', { maxQueue: 3 });
    await cache.start();
    const slow = recordingSink();
    const healthy = recordingSink();
    const broken = { ...recordingSink(), event: (): void => { throw new Error('boom'); } };
    cache.subscribe('/r/', undefined, broken);
    cache.subscribe('/r/', undefined, slow);
    cache.subscribe('/r/', undefined, healthy);
    const a = await store.create('/r/a', '1');
    await eventually(() => healthy.events.length === 1);
    assert.ok(broken.ended instanceof StoreError && broken.ended.code === 'Unavailable');
    slow.backlog = 3;
    const b = await store.create('/r/b', '1');
    await eventually(() => healthy.events.length === 2);
    assert.deepEqual(slow.events, [a.modRevision]);
    assert.ok(slow.ended instanceof StoreError && /fell more than 3 events behind/.test(slow.ended.message));
    assert.deepEqual(healthy.events, [a.modRevision, b.modRevision]);
    assert.equal(cache.watcherCount, 1);
    cache.stop();
    assert.equal(healthy.ended, 'stopped');
    await store.close();
  });
  it('a fan-out yields to the event loop between slices; events applied meanwhile join the pass for the watches it has not reached', async () => {
    const store = openMemoryStore();
    // A slice of 0 ms: the sweep yields after every watch.
    const cache = new WatchCache(store, '/r/', { sliceMs: 0 });
    await cache.start();
    const base = cache.revision;
    const event = (n: number): WatchEvent => addedAt(base + n);
    const log: string[] = [];
    const sinks = ['a', 'b', 'c'].map((name) => {
      let group: number[] = [];
      const sink: WatchSink = {
        backlog: 0,
        event: (e) => void group.push(e.revision - base),
        flush: () => {
          log.push(`${name}:${group.join('+')}`);
          group = [];
          if (name === 'a' && log.length === 1) {
            // While the pass is under way: another turn of the event loop, and a new event.
            setImmediate(() => log.push('immediate'));
            cache.changed(event(2));
          }
        },
        end: () => undefined,
      };
      cache.subscribe('/r/', base, sink);
      return sink;
    });
    assert.equal(sinks.length, 3);
    cache.changed(event(1));
    await eventually(() => log.filter((entry) => entry.startsWith('a:')).length === 2, 'the second pass reaches a');
    // b and c had not been visited when 2 arrived: they get 1 and 2 in one flush.
    assert.deepEqual(log, ['a:1', 'immediate', 'b:1+2', 'c:1+2', 'a:2']);
    // Idle once every watch has everything: nothing more is flushed.
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(log.length, 5);
    cache.stop();
    await store.close();
  });

  it('a visit offers a watch at most MAX_EVENTS_PER_VISIT events: a backlog reaches every watch a part per pass', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/', { sliceMs: 0 });
    await cache.start();
    const base = cache.revision;
    const log: string[] = [];
    for (const name of ['a', 'b']) {
      let count = 0;
      cache.subscribe('/r/', base, {
        backlog: 0,
        event: () => void count++,
        flush: () => {
          log.push(`${name}:${count}`);
          count = 0;
        },
        end: () => undefined,
      });
    }
    const total = MAX_EVENTS_PER_VISIT + 8;
    for (let n = 1; n <= total; n++) cache.changed(addedAt(base + n));
    await eventually(() => log.length === 4, 'two passes');
    assert.deepEqual(log, [`a:${MAX_EVENTS_PER_VISIT}`, `b:${MAX_EVENTS_PER_VISIT}`, 'a:8', 'b:8']);
    cache.stop();
    await store.close();
  });

  it('reports each pass when it ends: its duration, the watches it wrote to and the events it passed on', async () => {
    const store = openMemoryStore();
    const passes: SweepPass[] = [];
    const cache = new WatchCache(store, '/r/', { sliceMs: 0, onPass: (pass) => passes.push(pass) });
    await cache.start();
    const base = cache.revision;
    cache.changed(addedAt(base + 1));
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.equal(passes.length, 0, 'a pass that visited no watch is not reported');
    const all = [recordingSink(), recordingSink()];
    for (const sink of all) cache.subscribe('/r/', base + 1, sink);
    const other = recordingSink();
    cache.subscribe('/r/other/', base + 1, other);
    cache.changed(addedAt(base + 2));
    cache.changed(addedAt(base + 3));
    await eventually(() => passes.length === 1, 'the pass');
    const [pass] = passes;
    assert.deepEqual({ flushes: pass?.flushes, events: pass?.events }, { flushes: 2, events: 4 }, 'two watches, two events each; the other key range none');
    assert.ok(pass !== undefined && pass.durationMs >= 0 && Number.isFinite(pass.durationMs));
    for (const sink of all) assert.deepEqual(sink.events, [base + 2, base + 3]);
    assert.deepEqual(other.events, []);
    cache.stop();
    await store.close();
  });

  it('a watch subscribed during a pass is not offered what it already had, and a closed one is skipped', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, '/r/', { sliceMs: 0 });
    await cache.start();
    const early = recordingSink();
    const closing = recordingSink();
    let late: ReturnType<typeof recordingSink> | undefined;
    const handles: { closing?: { close(): void } } = {};
    const first = { ...recordingSink() };
    first.flush = (): void => {
      // During the pass: a watch from before the event arrives, another closes.
      if (late !== undefined) return;
      late = recordingSink();
      cache.subscribe('/r/', cache.revision - 1, late);
      handles.closing?.close();
    };
    cache.subscribe('/r/', undefined, first);
    cache.subscribe('/r/', undefined, early);
    handles.closing = cache.subscribe('/r/', undefined, closing);
    const a = await store.create('/r/a', '1');
    await eventually(() => early.events.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.deepEqual(late?.events, [a.modRevision], 'replayed once at subscribe, not again by the pass');
    assert.deepEqual(closing.events, [], 'closed before the pass reached it');
    cache.stop();
    await store.close();
  });
});
