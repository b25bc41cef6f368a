import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStoreError, type StoreErrorCode } from '../errors.js';
import { guaranteedUpdate } from '../guaranteed-update.js';
import { MAX_VALUE_BYTES } from '../keys.js';
import type { KeyValue, Store, WatchEvent } from '../types.js';
import { runPropertyTest } from './property-test.js';
import { seededRandom, takeEvents } from './watch-helpers.js';

/** What a backend's test file provides: fresh stores, each with a key prefix of its own. */
export interface StoreHarness {
  /** Once before the suite (start a server, make a folder). */
  setUp?(): Promise<void>;
  /** A new store object. Stores opened by one harness may share a backend; tests use unique prefixes. */
  open(): Promise<Store>;
  /** Once after the suite. */
  tearDown?(): Promise<void>;
}

async function rejectsWith(promise: Promise<unknown>, code: StoreErrorCode): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(isStoreError(error), `expected a StoreError ${code}, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    return true;
  });
}

function throwsWith(fn: () => unknown, code: StoreErrorCode): void {
  try {
    const result = fn();
    if (result instanceof Promise) throw new Error('use rejectsWith for promises');
  } catch (error) {
    assert.ok(isStoreError(error, code), `expected ${code}, got ${String(error)}`);
    return;
  }
  assert.fail(`expected ${code}`);
}

let counter = 0;
function uniquePrefix(): string {
  return `/conformance/${process.pid}-${Date.now().toString(36)}-${counter++}/`;
}

/** Values seen through get/list/watch carry the same key, value and revisions. */
function same(kv: KeyValue | undefined): Pick<KeyValue, 'key' | 'value' | 'createRevision' | 'modRevision'> | undefined {
  return kv === undefined ? undefined : { key: kv.key, value: kv.value, createRevision: kv.createRevision, modRevision: kv.modRevision };
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

    describe('keys and revisions', () => {
      it('create assigns one new revision and get returns the value', async () => {
        const p = uniquePrefix();
        const before = await store.currentRevision();
        const kv = await store.create(`${p}a`, 'one');
        assert.ok(kv.modRevision > before);
        assert.equal(kv.createRevision, kv.modRevision);
        assert.equal(await store.currentRevision(), kv.modRevision);
        assert.deepEqual(same(await store.get(`${p}a`)), same(kv));
        assert.equal(await store.get(`${p}missing`), undefined);
      });

      it('create of an existing key fails with KeyExists and writes nothing', async () => {
        const p = uniquePrefix();
        await store.create(`${p}a`, 'one');
        const revision = await store.currentRevision();
        await rejectsWith(store.create(`${p}a`, 'two'), 'KeyExists');
        assert.equal(await store.currentRevision(), revision);
        assert.equal((await store.get(`${p}a`))?.value, 'one');
      });

      it('update is a compare-and-swap on modRevision', async () => {
        const p = uniquePrefix();
        const created = await store.create(`${p}a`, 'one');
        const updated = await store.update(`${p}a`, 'two', created.modRevision);
        assert.ok(updated.modRevision > created.modRevision);
        assert.equal(updated.createRevision, created.createRevision);
        await assert.rejects(store.update(`${p}a`, 'stale', created.modRevision), (error: unknown) => {
          assert.ok(isStoreError(error, 'Conflict'));
          assert.equal(error.details.actualRevision, updated.modRevision);
          return true;
        });
        assert.equal((await store.get(`${p}a`))?.value, 'two');
        await rejectsWith(store.update(`${p}missing`, 'x', 1), 'KeyNotFound');
      });

      it('delete is unconditional or a compare-and-swap, and returns the previous value', async () => {
        const p = uniquePrefix();
        const a = await store.create(`${p}a`, 'one');
        await rejectsWith(store.delete(`${p}a`, a.modRevision + 1000), 'Conflict');
        const deleted = await store.delete(`${p}a`, a.modRevision);
        assert.ok(deleted.revision > a.modRevision);
        assert.deepEqual(same(deleted.prev), same(a));
        assert.equal(await store.get(`${p}a`), undefined);
        await rejectsWith(store.delete(`${p}a`), 'KeyNotFound');
        await store.create(`${p}b`, 'x');
        assert.equal((await store.delete(`${p}b`)).prev.value, 'x');
      });

      it('a key created again after a delete starts a new life', async () => {
        const p = uniquePrefix();
        const first = await store.create(`${p}a`, 'one');
        await store.delete(`${p}a`);
        const second = await store.create(`${p}a`, 'two');
        assert.ok(second.createRevision > first.createRevision);
        assert.equal(second.createRevision, second.modRevision);
      });

      it('revisions are global and strictly increasing across keys and prefixes', async () => {
        const p = uniquePrefix();
        const q = uniquePrefix();
        const revisions: number[] = [];
        revisions.push((await store.create(`${p}a`, '1')).modRevision);
        revisions.push((await store.create(`${q}a`, '1')).modRevision);
        revisions.push((await store.update(`${p}a`, '2', revisions[0] as number)).modRevision);
        revisions.push((await store.delete(`${q}a`)).revision);
        const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => store.create(`${p}c${i}`, 'x')));
        revisions.push(...concurrent.map((kv) => kv.modRevision).sort((x, y) => x - y));
        for (let i = 1; i < revisions.length; i++) assert.ok((revisions[i] as number) > (revisions[i - 1] as number), `${revisions.join(',')}`);
        assert.equal(new Set(revisions).size, revisions.length);
      });

      it('concurrent compare-and-swaps on one key: exactly one wins', async () => {
        const p = uniquePrefix();
        const kv = await store.create(`${p}a`, '0');
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.update(`${p}a`, String(i), kv.modRevision)));
        assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
        for (const r of results) if (r.status === 'rejected') assert.ok(isStoreError(r.reason, 'Conflict'));
      });

      it('guaranteedUpdate retries its pure function until the compare-and-swap holds', async () => {
        const p = uniquePrefix();
        await store.create(`${p}n`, '0');
        const increment = (kv: KeyValue | undefined): string => String(Number(kv?.value ?? '0') + 1);
        await Promise.all(Array.from({ length: 40 }, () => guaranteedUpdate(store, `${p}n`, increment)));
        assert.equal((await store.get(`${p}n`))?.value, '40');
        const unchanged = await guaranteedUpdate(store, `${p}n`, (kv) => kv?.value ?? '');
        assert.equal(unchanged.value, '40');
        await rejectsWith(guaranteedUpdate(store, `${p}none`, increment), 'KeyNotFound');
        assert.equal((await guaranteedUpdate(store, `${p}new`, increment, { allowCreate: true })).value, '1');
      });

      it('values of 1 MiB and more round-trip through get, list and watch; larger than the limit is refused', async () => {
        const p = uniquePrefix();
        const big = 'x'.repeat(1024 * 1024) + 'é'.repeat(1000);
        const iterator = store.watch(p, { fromRevision: await store.currentRevision() })[Symbol.asyncIterator]();
        const kv = await store.create(`${p}big`, big);
        assert.equal((await store.get(`${p}big`))?.value, big);
        assert.equal((await store.list(p)).items[0]?.value, big);
        const [event] = await takeEvents(iterator, 1);
        assert.equal(event?.type === 'ADDED' ? event.kv.value : undefined, big);
        await iterator.return?.();
        await rejectsWith(store.update(`${p}big`, 'y'.repeat(MAX_VALUE_BYTES + 1), kv.modRevision), 'InvalidArgument');
      });

      it('bad keys, prefixes and arguments are refused with InvalidArgument', async () => {
        for (const key of ['', 'no-slash', '/with space', '/naïve', '/tab\there', '/trailing/', '/' + 'k'.repeat(2000)]) {
          await rejectsWith(store.get(key), 'InvalidArgument');
          await rejectsWith(store.create(key, 'v'), 'InvalidArgument');
        }
        await rejectsWith(store.list('relative/'), 'InvalidArgument');
        await rejectsWith(store.list('/p/', { limit: 0 }), 'InvalidArgument');
        await rejectsWith(store.list('/p/', { revision: -1 }), 'InvalidArgument');
        await rejectsWith(store.list('/p/', { continue: 'not-a-token' }), 'InvalidArgument');
        await rejectsWith(store.update('/p/a', 'v', -5), 'InvalidArgument');
        await rejectsWith(store.grantLease(0), 'InvalidArgument');
        await rejectsWith(store.create('/p/a', 'v', { lease: 'nope' }), 'InvalidArgument');
        throwsWith(() => store.watch('no-slash'), 'InvalidArgument');
        await rejectsWith(store.compact((await store.currentRevision()) + 1000), 'InvalidArgument');
      });
    });

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
