import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EventCorrelator } from './event-correlator.js';
import { TokenBucket } from './token-bucket.js';

describe('event correlator', () => {
  it('token bucket allows a burst then one per refill period', () => {
    const bucket = new TokenBucket(2, 1000, 0);
    assert.deepEqual([bucket.take(0), bucket.take(0), bucket.take(0)], [true, true, false]);
    assert.equal(bucket.take(999), false);
    assert.equal(bucket.take(1000), true);
    assert.equal(bucket.take(1000), false);
    assert.deepEqual([bucket.take(5000), bucket.take(5000), bucket.take(5000)], [true, true, false], 'refilled to the burst, not beyond');
  });

  it('event correlator aggregates within the window only', () => {
    const correlator = new EventCorrelator({ aggregationWindowMs: 600_000 });
    assert.equal(correlator.existing('k', 0), undefined);
    correlator.written('k', 'web.1', 0);
    assert.deepEqual(correlator.existing('k', 600_000), { name: 'web.1', lastMs: 0 });
    assert.equal(correlator.existing('k', 600_001), undefined);
    correlator.written('k', 'web.1', 600_000);
    assert.deepEqual(correlator.existing('k', 1_000_000), { name: 'web.1', lastMs: 600_000 });
    correlator.forget('k');
    assert.equal(correlator.existing('k', 1_000_000), undefined);
  });

  it('event correlator keeps at most its cache size of records, oldest out first', () => {
    const correlator = new EventCorrelator({ cacheSize: 2, burst: 1, refillMs: 1000 });
    correlator.written('a', 'a.1', 0);
    correlator.written('b', 'b.1', 0);
    correlator.written('c', 'c.1', 0);
    assert.equal(correlator.existing('a', 0), undefined);
    assert.ok(correlator.existing('b', 0) && correlator.existing('c', 0));
    assert.equal(correlator.allow('x', 0), true);
    assert.equal(correlator.allow('x', 0), false);
    correlator.allow('y', 0);
    assert.equal(correlator.allow('x', 0), false, 'x was used after y: still remembered');
    correlator.allow('y', 0);
    correlator.allow('z', 0);
    // x's empty bucket was now the least recently used: forgotten, so x gets a full one again (the spam filter is best effort beyond its cache).
    assert.equal(correlator.allow('x', 0), true);
  });
});
