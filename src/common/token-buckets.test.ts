import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { takeToken, TokenBuckets, type TokenBucket } from './token-buckets.js';

const rule = { ratePerSecond: 2, burst: 3 };

describe('takeToken', () => {
  it('starts a new bucket full and takes one', () => {
    assert.deepEqual(takeToken(undefined, 1000, rule), { taken: true, bucket: { tokens: 2, atMs: 1000 } });
  });

  it('refuses below one token, with the whole seconds until one is back', () => {
    const outcome = takeToken({ tokens: 0.5, atMs: 0 }, 0, rule);
    assert.deepEqual(outcome, { taken: false, bucket: { tokens: 0.5, atMs: 0 }, retryAfterSeconds: 1 });
    const slow = takeToken({ tokens: 0, atMs: 0 }, 0, { ratePerSecond: 0.1, burst: 1 });
    assert.equal(slow.taken ? undefined : slow.retryAfterSeconds, 10);
  });

  it('refills for the time passed, never beyond the burst', () => {
    assert.deepEqual(takeToken({ tokens: 0, atMs: 0 }, 750, rule).bucket, { tokens: 0.5, atMs: 750 });
    assert.deepEqual(takeToken({ tokens: 0, atMs: 0 }, 60_000, rule).bucket, { tokens: 2, atMs: 60_000 });
  });

  it('does not refill when the clock goes backwards', () => {
    assert.equal(takeToken({ tokens: 0.5, atMs: 1000 }, 500, rule).taken, false);
  });

  it('lets through exactly the burst, then the rate', () => {
    let bucket: TokenBucket | undefined;
    let taken = 0;
    // 10 s of a request every 10 ms: the burst of 3, then 2 per second.
    for (let ms = 0; ms < 10_000; ms += 10) {
      const outcome = takeToken(bucket, ms, rule);
      bucket = outcome.bucket;
      if (outcome.taken) taken++;
    }
    assert.equal(taken, 3 + 20 - 1);
  });
});

describe('TokenBuckets', () => {
  it('keeps one bucket per key: a key over its rate does not hold back another', () => {
    let now = 0;
    const buckets = new TokenBuckets(rule, { now: () => now });
    assert.deepEqual([buckets.take('a'), buckets.take('a'), buckets.take('a')], [undefined, undefined, undefined]);
    assert.equal(buckets.take('a'), 1);
    assert.equal(buckets.take('b'), undefined, 'another key has its own full bucket');
    now = 500;
    assert.equal(buckets.take('a'), undefined, 'a token came back after half a second');
    assert.equal(buckets.take('a'), 1);
  });

  it('bounds the keys it remembers; a forgotten key starts full again', () => {
    const buckets = new TokenBuckets({ ratePerSecond: 1, burst: 1 }, { maxKeys: 2, now: () => 0 });
    assert.equal(buckets.take('a'), undefined);
    assert.equal(buckets.take('a'), 1);
    buckets.take('b');
    buckets.take('c');
    assert.equal(buckets.take('a'), undefined, '"a" was pushed out by b and c');
  });

  it('refuses a rule that could never let a request through', () => {
    assert.throws(() => new TokenBuckets({ ratePerSecond: 0, burst: 1 }), RangeError);
    assert.throws(() => new TokenBuckets({ ratePerSecond: 1, burst: 0.5 }), RangeError);
  });
});
