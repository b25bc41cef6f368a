import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mapLimit } from './map-limit.js';

describe('map limit', () => {
  it('map limit keeps order and never runs more than the limit at once', async () => {
    let running = 0;
    let peak = 0;
    const results = await mapLimit([5, 1, 4, 2, 3], 2, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, n));
      running--;
      return n * 10;
    });
    assert.deepEqual(results, [50, 10, 40, 20, 30]);
    assert.equal(peak, 2);
  });

  it('map limit stops starting work after a failure and throws the first error', async () => {
    const started: number[] = [];
    await assert.rejects(
      mapLimit([1, 2, 3, 4], 1, (n) => {
        started.push(n);
        return n === 2 ? Promise.reject(new Error('two')) : Promise.resolve(n);
      }),
      /two/,
    );
    assert.deepEqual(started, [1, 2]);
  });
});
