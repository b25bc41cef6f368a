import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../common/testing/fake-timers.js';
import { createLogger } from '../observability/logger.js';
import type { PodWatchEvent } from '../site-api/site-api-types.js';
import { runPodWatch } from './pod-watch-loop.js';
import type { PodRuntime } from './pod-runtime.js';

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const runtime: PodRuntime = { apply: () => undefined, remove: () => undefined, keys: () => new Map<string, never>().keys(), size: 0, close: () => undefined };

describe('pod watch loop', () => {
  it('after a long outage notices the control plane back within seconds (its back-off stays short) and says the link is up', async () => {
    const timers = fakeTimers(0);
    const abort = new AbortController();
    let up = false;
    let tries = 0;
    let opened = 0;
    const client = {
      watchPods(): Promise<AsyncIterable<PodWatchEvent>> {
        tries++;
        if (!up) return Promise.reject(new Error('connect ECONNREFUSED'));
        return Promise.resolve((async function* () {
          await new Promise((resolve) => abort.signal.addEventListener('abort', resolve));
          yield* [];
        })());
      },
    };
    const watching = runPodWatch({ client, runtime, forget: () => undefined, timers, logger: createLogger({ level: 'silent' }), signal: abort.signal, random: () => 1, onOpen: () => opened++ });
    // Ten minutes down: the waits between tries grow, then stop growing.
    for (let ms = 0; ms < 600_000; ms += 100) {
      timers.advance(100);
      await settle();
    }
    assert.ok(tries > 100, `tries during the outage: ${tries}`);
    assert.equal(opened, 0);
    up = true;
    const before = tries;
    for (let ms = 0; ms < 3600 && tries === before; ms += 100) {
      timers.advance(100);
      await settle();
    }
    assert.equal(tries, before + 1, 'the next try within 3.6 s of the control plane\'s return');
    assert.equal(opened, 1);
    abort.abort();
    await watching;
  });

  it('a restart ends a stream stuck on a dead connection and opens a new one at once, from the last resourceVersion', async () => {
    const timers = fakeTimers(0);
    const abort = new AbortController();
    const opens: Array<string | undefined> = [];
    const client = {
      watchPods(resourceVersion: string | undefined, signal: AbortSignal): Promise<AsyncIterable<PodWatchEvent>> {
        opens.push(resourceVersion);
        return Promise.resolve((async function* () {
          yield { type: 'BOOKMARK', object: { metadata: { resourceVersion: '7' } } } as unknown as PodWatchEvent;
          // A stream on a silently cut link: nothing more comes, and only its own abort ends it.
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
        })());
      },
    };
    let restart = (): void => undefined;
    const watching = runPodWatch({
      client, runtime, forget: () => undefined, timers, logger: createLogger({ level: 'silent' }), signal: abort.signal, restartOn: (r) => (restart = r),
    });
    await settle();
    assert.deepEqual(opens, [undefined]);
    restart();
    await settle();
    await settle();
    assert.deepEqual(opens, [undefined, '7'], 'reopened without waiting for a back-off, resuming after the last event');
    abort.abort();
    await watching;
  });
});
