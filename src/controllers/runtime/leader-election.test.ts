import assert from 'node:assert/strict';
import { after, afterEach, describe, it } from 'node:test';
import { createLogger } from '../../observability/logger.js';
import { StoreError } from '../../store/errors.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { leaderElectionKey, startLeaderElection, type LeaderElector, type LeaderRecord } from './leader-election.js';

const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });

async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** A view of `store` that can be cut off (a partitioned control-plane replica): writes and renewals fail. */
function partitionable(store: Store): { store: Store; cut(): void } {
  let cut = false;
  const guard = <T>(call: () => Promise<T>): Promise<T> => (cut ? Promise.reject(StoreError.unavailable('partitioned')) : call());
  return {
    cut: () => (cut = true),
    store: {
      get: (k) => store.get(k),
      list: (p, o) => store.list(p, o),
      create: (k, v, o) => guard(() => store.create(k, v, o)),
      update: (k, v, r, o) => guard(() => store.update(k, v, r, o)),
      delete: (k, r) => guard(() => store.delete(k, r)),
      watch: (p, o) => store.watch(p, o),
      currentRevision: () => store.currentRevision(),
      compactedRevision: () => store.compactedRevision(),
      compact: (r) => store.compact(r),
      grantLease: (t) => guard(() => store.grantLease(t)),
      keepAliveLease: (l) => guard(() => store.keepAliveLease(l)),
      revokeLease: (l) => guard(() => store.revokeLease(l)),
      close: () => store.close(),
    },
  };
}

interface Candidate {
  readonly elector: LeaderElector;
  readonly log: string[];
}

describe('leader election over a store lease', () => {
  let storeNow = Date.parse('2024-05-01T12:00:00Z');
  const store = openMemoryStore({ now: () => storeNow, leaseSweepIntervalMs: 5 });
  const started: LeaderElector[] = [];

  const candidate = (identity: string, over: Store = store): Candidate => {
    const log: string[] = [];
    const elector = startLeaderElection({
      store: over,
      name: 'test',
      identity,
      logger,
      renewIntervalMs: 20,
      retryIntervalMs: 10_000,
      onStartedLeading: (signal) => {
        log.push('started');
        signal.addEventListener('abort', () => log.push('aborted'));
      },
      onStoppedLeading: () => {
        log.push('stopped');
      },
    });
    started.push(elector);
    return { elector, log };
  };
  const holder = async (): Promise<string | undefined> => {
    const kv = await store.get(leaderElectionKey('test'));
    return kv === undefined ? undefined : (JSON.parse(kv.value) as LeaderRecord).holderIdentity;
  };

  afterEach(async () => {
    await Promise.all(started.splice(0).map((e) => e.stop()));
  });
  after(() => store.close());

  it('leader election makes one candidate leader and hands over at once when it stops', async () => {
    const a = candidate('replica-a');
    await eventually('a leads', () => a.elector.isLeader);
    const b = candidate('replica-b');
    await new Promise((resolve) => setTimeout(resolve, 60));
    assert.equal(b.elector.isLeader, false, 'the second candidate waits');
    assert.equal(await holder(), 'replica-a');
    await a.elector.stop();
    assert.deepEqual(a.log, ['started', 'aborted', 'stopped']);
    await eventually('b takes over through its watch (long before its 10 s retry)', () => b.elector.isLeader);
    assert.equal(await holder(), 'replica-b');
    assert.deepEqual(b.log, ['started']);
  });

  it('leader election stops a partitioned leader at once when its lease expires, and the other takes over', async () => {
    const partitioned = partitionable(store);
    const a = candidate('replica-a', partitioned.store);
    await eventually('a leads', () => a.elector.isLeader);
    const b = candidate('replica-b');
    partitioned.cut();
    storeNow += 16_000;
    await eventually('a stops leading', () => a.log.includes('stopped'));
    assert.deepEqual(a.log.slice(0, 3), ['started', 'aborted', 'stopped']);
    await eventually('b leads', () => b.elector.isLeader);
    assert.equal(await holder(), 'replica-b');
    assert.equal(a.elector.isLeader, false);
  });
});
