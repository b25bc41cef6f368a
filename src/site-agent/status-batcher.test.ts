import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import type { PodRef, PodStatusItem, PodStatusResult } from '../site-api/site-api-types.js';
import { StatusBatcher, type StatusTransport } from './status-batcher.js';
import { fakeTimers } from '../common/testing/fake-timers.js';

const logger = createLogger({ level: 'silent' });
const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk' };
const item = (name: string, phase: string): PodStatusItem => ({ cluster, name, uid: `uid-${name}`, status: { phase } });

/**
 * A transport that records requests; `fail` makes the next requests throw; `errors` answers
 * item errors (statuses and terminations), once each when `once` holds the name.
 */
function recorder(): StatusTransport & {
  calls: Array<{ kind: 'status' | 'terminated'; names: string[]; phases?: string[] }>;
  fail: number;
  errors: Map<string, string | Omit<PodStatusResult, 'name'>>;
  once: Set<string>;
} {
  const calls: Array<{ kind: 'status' | 'terminated'; names: string[]; phases?: string[] }> = [];
  const errors = new Map<string, string | Omit<PodStatusResult, 'name'>>();
  const once = new Set<string>();
  const answer = (items: readonly PodRef[]): PodStatusResult[] =>
    items.map((i) => {
      const error = errors.get(i.name);
      if (once.has(i.name)) errors.delete(i.name);
      return { name: i.name, ...(error === undefined ? {} : typeof error === 'string' ? { error } : error) };
    });
  const self = {
    calls,
    fail: 0,
    errors,
    once,
    postStatuses(items: readonly PodStatusItem[]): Promise<readonly PodStatusResult[]> {
      calls.push({ kind: 'status', names: items.map((i) => i.name), phases: items.map((i) => String(i.status['phase'])) });
      if (self.fail > 0) {
        self.fail--;
        return Promise.reject(new Error('connection reset'));
      }
      return Promise.resolve(answer(items));
    },
    postTerminated(items: readonly PodRef[]): Promise<readonly PodStatusResult[]> {
      calls.push({ kind: 'terminated', names: items.map((i) => i.name) });
      return Promise.resolve(answer(items));
    },
  };
  return self;
}

const unavailable = { error: 'the storage is unavailable; try again', reason: 'ServiceUnavailable', code: 503 };

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('StatusBatcher', () => {
  it('status batcher coalesces per pod and flushes after 100 ms', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    const batcher = new StatusBatcher({ transport, timers, logger });
    batcher.status('a', item('a', 'Pending'));
    batcher.status('b', item('b', 'Pending'));
    batcher.status('a', item('a', 'Running'));
    timers.advance(99);
    await settle();
    assert.equal(transport.calls.length, 0);
    timers.advance(1);
    await settle();
    assert.deepEqual(transport.calls, [{ kind: 'status', names: ['a', 'b'], phases: ['Running', 'Pending'] }]);
    assert.equal(batcher.pending, 0);
  });

  it('status batcher sends at once when a batch is full, one request at a time', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    const batcher = new StatusBatcher({ transport, timers, logger, maxBatch: 3 });
    for (const name of ['a', 'b', 'c', 'd', 'e', 'f', 'g']) batcher.status(name, item(name, 'Running'));
    await settle();
    await settle();
    assert.deepEqual(transport.calls.map((c) => c.names), [['a', 'b', 'c'], ['d', 'e', 'f']]);
    timers.advance(100);
    await settle();
    assert.deepEqual(transport.calls.map((c) => c.names), [['a', 'b', 'c'], ['d', 'e', 'f'], ['g']]);
  });

  it('status batcher retries a failed batch with back-off, keeping newer statuses', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    transport.fail = 1;
    const batcher = new StatusBatcher({ transport, timers, logger });
    batcher.status('a', item('a', 'Pending'));
    batcher.status('b', item('b', 'Pending'));
    timers.advance(100);
    batcher.status('a', item('a', 'Running'));
    await settle();
    assert.equal(batcher.pending, 2);
    timers.advance(100);
    await settle();
    assert.equal(transport.calls.length, 1, 'backs off longer than the flush interval after a failure');
    timers.advance(500);
    await settle();
    assert.deepEqual(transport.calls[1], { kind: 'status', names: ['a', 'b'], phases: ['Running', 'Pending'] });
  });

  it('status batcher keeps each pod\'s newest report while the control plane is unreachable and sends them once the link is back, not at the back-off\'s end', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    transport.fail = 5;
    const batcher = new StatusBatcher({ transport, timers, logger });
    batcher.status('a', item('a', 'Pending'));
    for (let i = 0; i < 5; i++) {
      timers.advance(10_000);
      await settle();
    }
    assert.equal(transport.calls.length, 5, 'every try failed');
    batcher.status('a', item('a', 'Running'));
    batcher.status('b', item('b', 'Running'));
    batcher.retryNow();
    await settle();
    assert.equal(transport.calls.length, 6, 'sent when the link is back, before the back-off ran out');
    assert.deepEqual(transport.calls[5], { kind: 'status', names: ['a', 'b'], phases: ['Running', 'Running'] });
    assert.equal(batcher.pending, 0);
    batcher.retryNow();
    timers.advance(20_000);
    await settle();
    assert.equal(transport.calls.length, 6, 'nothing sent twice');
  });

  it('status batcher sends terminations after statuses and drops a terminated pod\'s waiting status', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    const batcher = new StatusBatcher({ transport, timers, logger });
    batcher.status('a', item('a', 'Running'));
    batcher.status('b', item('b', 'Running'));
    batcher.terminated('b', { cluster, name: 'b', uid: 'uid-b' });
    batcher.status('b', item('b', 'Running'));
    timers.advance(100);
    await settle();
    assert.deepEqual(transport.calls.map((c) => [c.kind, c.names]), [['status', ['a']], ['terminated', ['b']]]);
  });

  it('status batcher sends again, after a back-off, statuses the control plane could not take for now (its store was down), each pod\'s newest', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    transport.errors.set('a', unavailable);
    transport.errors.set('b', unavailable);
    transport.once.add('a').add('b');
    const batcher = new StatusBatcher({ transport, timers, logger });
    batcher.status('a', item('a', 'Running'));
    batcher.status('b', item('b', 'Running'));
    timers.advance(100);
    await settle();
    batcher.status('b', item('b', 'Succeeded'));
    assert.equal(batcher.pending, 2, 'both wait again: a as it was, b as reported since');
    timers.advance(100);
    await settle();
    assert.equal(transport.calls.length, 1, 'backs off longer than the flush interval');
    timers.advance(500);
    await settle();
    assert.deepEqual(transport.calls[1], { kind: 'status', names: ['a', 'b'], phases: ['Running', 'Succeeded'] });
    assert.equal(batcher.pending, 0);
  });

  it('status batcher sends again a termination the control plane could not take for now; not one it refused', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    transport.errors.set('a', unavailable);
    transport.once.add('a');
    transport.errors.set('b', { error: 'the pod is not on a site of this agent', reason: 'Forbidden', code: 403 });
    const batcher = new StatusBatcher({ transport, timers, logger });
    batcher.terminated('a', { cluster, name: 'a', uid: 'uid-a' });
    batcher.terminated('b', { cluster, name: 'b', uid: 'uid-b' });
    timers.advance(100);
    await settle();
    assert.equal(batcher.pending, 1);
    timers.advance(1000);
    await settle();
    assert.deepEqual(transport.calls.map((c) => [c.kind, c.names]), [['terminated', ['a', 'b']], ['terminated', ['a']]]);
    assert.equal(batcher.pending, 0);
  });

  it('status batcher reports pods the server no longer has, and close sends what waits', async () => {
    const timers = fakeTimers(0);
    const transport = recorder();
    transport.errors.set('gone', 'pods "gone" not found');
    transport.errors.set('bad', 'Operation cannot be fulfilled: conflict');
    const gone: string[] = [];
    const batcher = new StatusBatcher({ transport, timers, logger, onGone: (key, uid) => gone.push(`${key}/${uid}`) });
    batcher.status('gone', item('gone', 'Running'));
    batcher.status('bad', item('bad', 'Running'));
    await batcher.close();
    assert.deepEqual(gone, ['gone/uid-gone']);
    assert.equal(transport.calls.length, 1);
    assert.equal(batcher.pending, 0);
  });
});
