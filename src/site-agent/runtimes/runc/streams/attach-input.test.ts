import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paceResizes, resizeMessage } from './attach-input.js';

test('resizeMessage: conmon\'s resize line (type 1, rows, columns), sides capped at 1000, empty sizes dropped', () => {
  assert.equal(resizeMessage({ width: 101, height: 33 }), '1 33 101\n');
  assert.equal(resizeMessage({ width: 5000, height: 40 }), '1 40 1000\n');
  assert.equal(resizeMessage({ width: 0, height: 40 }), undefined);
  assert.equal(resizeMessage({ width: 80, height: -1 }), undefined);
  assert.equal(resizeMessage({ width: Number.NaN, height: 24 }), undefined);
});

/** Sizes pushed by the test, as the tunnel's queue gives them. */
function sizeQueue(): { push(size: { width: number; height: number }): void; end(): void; sizes: AsyncIterable<{ width: number; height: number }> } {
  const items: Array<{ width: number; height: number } | undefined> = [];
  let wake: (() => void) | undefined;
  return {
    push: (size) => {
      items.push(size);
      wake?.();
    },
    end: () => {
      items.push(undefined);
      wake?.();
    },
    sizes: {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          if (items.length === 0) await new Promise<void>((resolve) => (wake = resolve));
          const next = items.shift();
          if (next === undefined) return;
          yield next;
        }
      },
    },
  };
}

test('paceResizes: kubectl attach\'s size-plus-one then size are written apart, the last one confirmed; bursts collapse to the newest', async () => {
  const writes: Array<{ message: string; at: number }> = [];
  const queue = sizeQueue();
  const started = Date.now();
  const done = paceResizes(queue.sizes, (message) => {
    writes.push({ message, at: Date.now() - started });
    return Promise.resolve(true);
  }, new AbortController().signal, { spacingMs: 30, confirmMs: 80 });
  queue.push({ width: 81, height: 25 });
  queue.push({ width: 80, height: 24 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  for (let i = 0; i < 5; i += 1) queue.push({ width: 100 + i, height: 40 });
  queue.push({ width: 0, height: 0 });
  await new Promise((resolve) => setTimeout(resolve, 200));
  queue.end();
  await done;
  const messages = writes.map((w) => w.message);
  assert.deepEqual(messages.slice(0, 3), ['1 25 81\n', '1 24 80\n', '1 24 80\n']);
  // The burst of five: at most the first alone, then the newest, confirmed.
  assert.deepEqual(messages.slice(-2), ['1 40 104\n', '1 40 104\n']);
  assert.ok(messages.length <= 6, JSON.stringify(messages));
  for (let i = 1; i < writes.length; i += 1) assert.ok((writes[i]?.at ?? 0) - (writes[i - 1]?.at ?? 0) >= 25, `writes ${i - 1} and ${i} too close: ${JSON.stringify(writes)}`);
});

test('paceResizes stops at once when conmon is gone or the session aborts', async () => {
  const queue = sizeQueue();
  let calls = 0;
  queue.push({ width: 80, height: 24 });
  await paceResizes(queue.sizes, () => {
    calls += 1;
    return Promise.resolve(false);
  }, new AbortController().signal, { spacingMs: 10, confirmMs: 10 });
  assert.equal(calls, 1);
  const abort = new AbortController();
  const idle = paceResizes(sizeQueue().sizes, () => Promise.resolve(true), abort.signal);
  abort.abort();
  await idle;
});
