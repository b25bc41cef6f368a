import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStoreError } from '../errors.js';
import type { Store, WatchEvent } from '../types.js';
import { runPropertyTest } from './property-test.js';
import { seededRandom, takeEvents } from './watch-helpers.js';
import { rejectsWith, same, uniquePrefix } from './conformance-helpers.js';
import { describeKeysConformance } from './conformance-keys.js';

/** What a backend's test file provides: fresh stores, each with a key prefix of its own. */
export interface StoreHarness {
  /** Once before the suite (start a server, make a folder). */
  setUp?(): Promise<void>;
  /** A new store object. Stores opened by one harness may share a backend; tests use unique prefixes. */
  open(): Promise<Store>;
  /** Once after the suite. */
  tearDown?(): Promise<void>;
}

/**
 * The store contract (types.ts) as tests. Every backend runs exactly this suite.
 */
export function describeStoreConformance(backend: string, harness: StoreHarness): void {
  describe(`store conformance: ${backend}`, () => {
    let store: Store;
    before(async () => {
      await harness.setUp?.();
      store = await harness.open();
    });
    after(async () => {
      await store?.close();
      await harness.tearDown?.();
    });

    describeKeysConformance(() => store);

    describe('list', () => {
      it('lists a prefix in key order, excluding keys that merely share characters', async () => {
        const p = uniquePrefix();
        for (const name of ['c', 'a', 'b/x', 'b']) await store.create(`${p}${name}`, name);
        await store.create(`${p.slice(0, -1)}x/a`, 'other');
        const list = await store.list(p);
        assert.deepEqual(list.items.map((kv) => kv.key), ['a', 'b', 'b/x', 'c'].map((n) => `${p}${n}`));
        assert.equal(list.revision, await store.currentRevision());
        assert.equal(list.continue, undefined);
      });

      it('pages with limit and continue read every page at the first page\'s snapshot', async () => {
        const p = uniquePrefix();
        for (let i = 0; i < 7; i++) await store.create(`${p}k${i}`, `v${i}`);
        const first = await store.list(p, { limit: 3 });
        assert.equal(first.items.length, 3);
        assert.ok(first.continue !== undefined);
        await store.create(`${p}k9`, 'late');
        await store.delete(`${p}k5`);
        await store.update(`${p}k4`, 'changed', (await store.get(`${p}k4`))?.modRevision ?? 0);
        const keys = first.items.map((kv) => kv.key);
        const values = first.items.map((kv) => kv.value);
        let token: string | undefined = first.continue;
        while (token !== undefined) {
          const page = await store.list(p, { limit: 3, continue: token });
          assert.equal(page.revision, first.revision);
          keys.push(...page.items.map((kv) => kv.key));
          values.push(...page.items.map((kv) => kv.value));
          token = page.continue;
        }
        assert.deepEqual(keys, Array.from({ length: 7 }, (_, i) => `${p}k${i}`));
        assert.deepEqual(values, Array.from({ length: 7 }, (_, i) => `v${i}`));
        await rejectsWith(store.list(`${p}k`, { continue: first.continue }), 'InvalidArgument');
      });

      it('lists at a past revision show the state of then; a future revision is refused', async () => {
        const p = uniquePrefix();
        const a = await store.create(`${p}a`, 'one');
        await store.update(`${p}a`, 'two', a.modRevision);
        await store.create(`${p}b`, 'b');
        const then = await store.list(p, { revision: a.modRevision });
        assert.deepEqual(then.items.map((kv) => [kv.key, kv.value]), [[`${p}a`, 'one']]);
        assert.equal(then.revision, a.modRevision);
        await rejectsWith(store.list(p, { revision: (await store.currentRevision()) + 100 }), 'InvalidArgument');
      });
    });

    describe('watch', () => {
      it('delivers ADDED, MODIFIED and DELETED with previous values, in order, for its prefix only', async () => {
        const p = uniquePrefix();
        const controller = new AbortController();
        const iterator = store.watch(p, { signal: controller.signal, fromRevision: await store.currentRevision() })[Symbol.asyncIterator]();
        const a = await store.create(`${p}a`, '1');
        await store.create(`${p.slice(0, -1)}zz/a`, 'not mine');
        const a2 = await store.update(`${p}a`, '2', a.modRevision);
        const d = await store.delete(`${p}a`);
        const events = await takeEvents(iterator, 3);
        assert.deepEqual(
          events.map((e) => [e.type, e.key, e.revision]),
          [
            ['ADDED', `${p}a`, a.modRevision],
            ['MODIFIED', `${p}a`, a2.modRevision],
            ['DELETED', `${p}a`, d.revision],
          ],
        );
        const [added, modified, deleted] = events as [WatchEvent, WatchEvent, WatchEvent];
        assert.equal(added.type === 'ADDED' && added.kv.value, '1');
        assert.ok(modified.type === 'MODIFIED');
        assert.deepEqual(same(modified.kv), same(a2));
        assert.deepEqual(same(modified.prev), same(a));
        assert.ok(deleted.type === 'DELETED');
        assert.deepEqual(same(deleted.prev), same(a2));
        controller.abort();
        assert.equal((await iterator.next()).done, true);
      });

      it('replays history from a past revision, then continues live', async () => {
        const p = uniquePrefix();
        const start = await store.currentRevision();
        const a = await store.create(`${p}a`, '1');
        await store.create(`${p}b`, '1');
        await store.update(`${p}a`, '2', a.modRevision);
        const iterator = store.watch(p, { fromRevision: start })[Symbol.asyncIterator]();
        const past = await takeEvents(iterator, 3);
        assert.deepEqual(past.map((e) => [e.type, e.key]), [['ADDED', `${p}a`], ['ADDED', `${p}b`], ['MODIFIED', `${p}a`]]);
        await store.delete(`${p}b`);
        const [live] = await takeEvents(iterator, 1);
        assert.deepEqual([live?.type, live?.key], ['DELETED', `${p}b`]);
        const fromMiddle = store.watch(p, { fromRevision: a.modRevision })[Symbol.asyncIterator]();
        const rest = await takeEvents(fromMiddle, 3);
        assert.deepEqual(rest.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
        await iterator.return?.();
        await fromMiddle.return?.();
      });

      it('many watchers each see every event exactly once while writers race', async () => {
        const p = uniquePrefix();
        const start = await store.currentRevision();
        const watchers = Array.from({ length: 5 }, () => store.watch(p, { fromRevision: start })[Symbol.asyncIterator]());
        const writes = await Promise.all(Array.from({ length: 200 }, (_, i) => store.create(`${p}k${i}`, String(i))));
        const expected = writes.map((kv) => kv.modRevision).sort((x, y) => x - y);
        for (const watcher of watchers) {
          const events = await takeEvents(watcher, 200);
          assert.deepEqual(events.map((e) => e.revision), expected);
          await watcher.return?.();
        }
      });

      it('a watch without a revision delivers the writes made once it is established', async () => {
        const p = uniquePrefix();
        const iterator = store.watch(p)[Symbol.asyncIterator]();
        const first = iterator.next();
        let received: IteratorResult<WatchEvent> | undefined;
        void first.then((r) => (received = r));
        // Keep writing until the watch (established asynchronously on etcd) reports one.
        const deadline = Date.now() + 10_000;
        for (let i = 0; received === undefined && Date.now() < deadline; i++) {
          await store.create(`${p}k${i}`, 'x');
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.ok(received !== undefined, 'no event within 10 s');
        assert.equal(received.done, false);
        assert.ok(received.value.type === 'ADDED' && received.value.key.startsWith(`${p}k`));
        await iterator.return?.();
      });

      it('an aborted watch ends its iteration', async () => {
        const controller = new AbortController();
        const iterator = store.watch(uniquePrefix(), { signal: controller.signal })[Symbol.asyncIterator]();
        const pending = iterator.next();
        controller.abort();
        assert.equal((await pending).done, true);
      });
    });

    describe('compaction', () => {
      it('below the compacted revision, list and watch fail with Compacted; at and above it they work', async () => {
        const p = uniquePrefix();
        const a = await store.create(`${p}a`, '1');
        const page = await store.list(p, { limit: 1 });
        await store.create(`${p}b`, '1');
        const a2 = await store.update(`${p}a`, '2', a.modRevision);
        const c = await store.create(`${p}c`, '1');
        await store.compact(a2.modRevision);
        assert.ok((await store.compactedRevision()) >= a2.modRevision);
        await rejectsWith(store.list(p, { revision: a.modRevision }), 'Compacted');
        const old = store.watch(p, { fromRevision: a.modRevision })[Symbol.asyncIterator]();
        await rejectsWith(old.next(), 'Compacted');
        if (page.continue !== undefined) await rejectsWith(store.list(p, { limit: 1, continue: page.continue }), 'Compacted');
        const at = await store.list(p, { revision: a2.modRevision });
        assert.deepEqual(at.items.map((kv) => [kv.key, kv.value]), [[`${p}a`, '2'], [`${p}b`, '1']]);
        const fresh = store.watch(p, { fromRevision: a2.modRevision })[Symbol.asyncIterator]();
        const [event] = await takeEvents(fresh, 1);
        assert.deepEqual([event?.type, event?.revision], ['ADDED', c.modRevision]);
        await store.compact(a.modRevision); // compacting again below the mark is a no-op
        await fresh.return?.();
      });

      it('a watcher that is still reading when history is compacted gets every event or Compacted, never a gap', async () => {
        // Whether the backend had already read the history when the compaction landed is a
        // race (etcd streams eagerly): both outcomes are correct, a silent gap or a hang is not.
        const p = uniquePrefix();
        const start = await store.currentRevision();
        let last = await store.create(`${p}k`, '0');
        for (let i = 1; i < 20; i++) last = await store.update(`${p}k`, String(i), last.modRevision);
        const iterator = store.watch(p, { fromRevision: start })[Symbol.asyncIterator]();
        await store.compact(last.modRevision);
        const seen: number[] = [];
        let outcome: 'complete' | 'compacted' = 'complete';
        try {
          while (seen.at(-1) !== last.modRevision) {
            const next = await iterator.next();
            if (next.done === true) throw new Error('watch ended without an error');
            seen.push(next.value.revision);
          }
        } catch (error) {
          if (!isStoreError(error, 'Compacted')) throw error;
          outcome = 'compacted';
        }
        for (let i = 1; i < seen.length; i++) assert.equal(seen[i], (seen[i - 1] as number) + 1);
        if (outcome === 'complete') assert.equal(seen.length, 20);
        await iterator.return?.();
      });
    });

    describe('leases', () => {
      it('keys attached to a lease disappear with a DELETED event when it expires', async () => {
        const p = uniquePrefix();
        const lease = await store.grantLease(1);
        const iterator = store.watch(p, { fromRevision: await store.currentRevision() })[Symbol.asyncIterator]();
        const kv = await store.create(`${p}heartbeat`, 'alive', { lease });
        assert.equal(kv.lease, lease);
        const events = await takeEvents(iterator, 2, 15_000);
        assert.deepEqual(events.map((e) => e.type), ['ADDED', 'DELETED']);
        assert.equal(await store.get(`${p}heartbeat`), undefined);
        await rejectsWith(store.keepAliveLease(lease), 'LeaseNotFound');
        await rejectsWith(store.create(`${p}late`, 'x', { lease }), 'LeaseNotFound');
        await iterator.return?.();
      });

      it('keep-alive holds a lease past its TTL; revoke deletes its keys at once', async () => {
        const p = uniquePrefix();
        const lease = await store.grantLease(2);
        await store.create(`${p}a`, 'x', { lease });
        const b = await store.create(`${p}b`, 'x', { lease });
        await store.update(`${p}b`, 'detached', b.modRevision); // a write without the lease detaches the key
        const until = Date.now() + 4500;
        while (Date.now() < until) {
          assert.ok((await store.keepAliveLease(lease)) >= 1);
          await new Promise((r) => setTimeout(r, 500));
        }
        assert.equal((await store.get(`${p}a`))?.value, 'x');
        await store.revokeLease(lease);
        assert.equal(await store.get(`${p}a`), undefined);
        assert.equal((await store.get(`${p}b`))?.value, 'detached');
        await rejectsWith(store.revokeLease(lease), 'LeaseNotFound');
      });
    });

    describe('property', () => {
      it('10,000 random operations from concurrent writers: a watcher replaying its events reaches exactly the final state', async () => {
        const seed = Number(process.env['STORE_PROPERTY_SEED'] ?? 20261121);
        await runPropertyTest(store, { prefix: uniquePrefix(), operations: 10_000, writers: 8, keys: 64, random: seededRandom(seed), seed });
      });
    });

    describe('lifecycle', () => {
      it('a closed store refuses work with Unavailable and ends its watches', async () => {
        const own = await harness.open();
        const iterator = own.watch(uniquePrefix())[Symbol.asyncIterator]();
        const pending = iterator.next();
        await own.close();
        assert.equal((await pending).done, true);
        await rejectsWith(own.get('/a'), 'Unavailable');
        await rejectsWith(own.create('/a', 'x'), 'Unavailable');
        await own.close(); // idempotent
      });
    });
  });
}
