import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isStoreError } from '../errors.js';
import { guaranteedUpdate } from '../guaranteed-update.js';
import { MAX_VALUE_BYTES } from '../keys.js';
import type { KeyValue, Store } from '../types.js';
import { takeEvents } from './watch-helpers.js';
import { rejectsWith, same, throwsWith, uniquePrefix } from './conformance-helpers.js';

/** The contract's keys and revisions (create, get, update, delete with compare-and-swap), on the suite's store. */
export function describeKeysConformance(store: () => Store): void {
  describe('keys and revisions', () => {
    it('create assigns one new revision and get returns the value', async () => {
      const p = uniquePrefix();
      const before = await store().currentRevision();
      const kv = await store().create(`${p}a`, 'one');
      assert.ok(kv.modRevision > before);
      assert.equal(kv.createRevision, kv.modRevision);
      assert.equal(await store().currentRevision(), kv.modRevision);
      assert.deepEqual(same(await store().get(`${p}a`)), same(kv));
      assert.equal(await store().get(`${p}missing`), undefined);
    });

    it('create of an existing key fails with KeyExists and writes nothing', async () => {
      const p = uniquePrefix();
      await store().create(`${p}a`, 'one');
      const revision = await store().currentRevision();
      await rejectsWith(store().create(`${p}a`, 'two'), 'KeyExists');
      assert.equal(await store().currentRevision(), revision);
      assert.equal((await store().get(`${p}a`))?.value, 'one');
    });

    it('update is a compare-and-swap on modRevision', async () => {
      const p = uniquePrefix();
      const created = await store().create(`${p}a`, 'one');
      const updated = await store().update(`${p}a`, 'two', created.modRevision);
      assert.ok(updated.modRevision > created.modRevision);
      assert.equal(updated.createRevision, created.createRevision);
      await assert.rejects(store().update(`${p}a`, 'stale', created.modRevision), (error: unknown) => {
        assert.ok(isStoreError(error, 'Conflict'));
        assert.equal(error.details.actualRevision, updated.modRevision);
        return true;
      });
      assert.equal((await store().get(`${p}a`))?.value, 'two');
      await rejectsWith(store().update(`${p}missing`, 'x', 1), 'KeyNotFound');
    });

    it('delete is unconditional or a compare-and-swap, and returns the previous value', async () => {
      const p = uniquePrefix();
      const a = await store().create(`${p}a`, 'one');
      await rejectsWith(store().delete(`${p}a`, a.modRevision + 1000), 'Conflict');
      const deleted = await store().delete(`${p}a`, a.modRevision);
      assert.ok(deleted.revision > a.modRevision);
      assert.deepEqual(same(deleted.prev), same(a));
      assert.equal(await store().get(`${p}a`), undefined);
      await rejectsWith(store().delete(`${p}a`), 'KeyNotFound');
      await store().create(`${p}b`, 'x');
      assert.equal((await store().delete(`${p}b`)).prev.value, 'x');
    });

    it('a key created again after a delete starts a new life', async () => {
      const p = uniquePrefix();
      const first = await store().create(`${p}a`, 'one');
      await store().delete(`${p}a`);
      const second = await store().create(`${p}a`, 'two');
      assert.ok(second.createRevision > first.createRevision);
      assert.equal(second.createRevision, second.modRevision);
    });

    it('revisions are global and strictly increasing across keys and prefixes', async () => {
      const p = uniquePrefix();
      const q = uniquePrefix();
      const revisions: number[] = [];
      revisions.push((await store().create(`${p}a`, '1')).modRevision);
      revisions.push((await store().create(`${q}a`, '1')).modRevision);
      revisions.push((await store().update(`${p}a`, '2', revisions[0] as number)).modRevision);
      revisions.push((await store().delete(`${q}a`)).revision);
      const concurrent = await Promise.all(Array.from({ length: 20 }, (_, i) => store().create(`${p}c${i}`, 'x')));
      revisions.push(...concurrent.map((kv) => kv.modRevision).sort((x, y) => x - y));
      for (let i = 1; i < revisions.length; i++) assert.ok((revisions[i] as number) > (revisions[i - 1] as number), `${revisions.join(',')}`);
      assert.equal(new Set(revisions).size, revisions.length);
    });

    it('concurrent compare-and-swaps on one key: exactly one wins', async () => {
      const p = uniquePrefix();
      const kv = await store().create(`${p}a`, '0');
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store().update(`${p}a`, String(i), kv.modRevision)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      for (const r of results) if (r.status === 'rejected') assert.ok(isStoreError(r.reason, 'Conflict'));
    });

    it('guaranteedUpdate retries its pure function until the compare-and-swap holds', async () => {
      const p = uniquePrefix();
      await store().create(`${p}n`, '0');
      const increment = (kv: KeyValue | undefined): string => String(Number(kv?.value ?? '0') + 1);
      await Promise.all(Array.from({ length: 40 }, () => guaranteedUpdate(store(), `${p}n`, increment)));
      assert.equal((await store().get(`${p}n`))?.value, '40');
      const unchanged = await guaranteedUpdate(store(), `${p}n`, (kv) => kv?.value ?? '');
      assert.equal(unchanged.value, '40');
      await rejectsWith(guaranteedUpdate(store(), `${p}none`, increment), 'KeyNotFound');
      assert.equal((await guaranteedUpdate(store(), `${p}new`, increment, { allowCreate: true })).value, '1');
    });

    it('values of 1 MiB and more round-trip through get, list and watch; larger than the limit is refused', async () => {
      const p = uniquePrefix();
      const big = 'x'.repeat(1024 * 1024) + 'é'.repeat(1000);
      const iterator = store().watch(p, { fromRevision: await store().currentRevision() })[Symbol.asyncIterator]();
      const kv = await store().create(`${p}big`, big);
      assert.equal((await store().get(`${p}big`))?.value, big);
      assert.equal((await store().list(p)).items[0]?.value, big);
      const [event] = await takeEvents(iterator, 1);
      assert.equal(event?.type === 'ADDED' ? event.kv.value : undefined, big);
      await iterator.return?.();
      await rejectsWith(store().update(`${p}big`, 'y'.repeat(MAX_VALUE_BYTES + 1), kv.modRevision), 'InvalidArgument');
    });

    it('bad keys, prefixes and arguments are refused with InvalidArgument', async () => {
      for (const key of ['', 'no-slash', '/with space', '/naïve', '/tab\there', '/trailing/', '/' + 'k'.repeat(2000)]) {
        await rejectsWith(store().get(key), 'InvalidArgument');
        await rejectsWith(store().create(key, 'v'), 'InvalidArgument');
      }
      await rejectsWith(store().list('relative/'), 'InvalidArgument');
      await rejectsWith(store().list('/p/', { limit: 0 }), 'InvalidArgument');
      await rejectsWith(store().list('/p/', { revision: -1 }), 'InvalidArgument');
      await rejectsWith(store().list('/p/', { continue: 'not-a-token' }), 'InvalidArgument');
      await rejectsWith(store().update('/p/a', 'v', -5), 'InvalidArgument');
      await rejectsWith(store().grantLease(0), 'InvalidArgument');
      await rejectsWith(store().create('/p/a', 'v', { lease: 'nope' }), 'InvalidArgument');
      throwsWith(() => store().watch('no-slash'), 'InvalidArgument');
      await rejectsWith(store().compact((await store().currentRevision()) + 1000), 'InvalidArgument');
    });
  });
}
