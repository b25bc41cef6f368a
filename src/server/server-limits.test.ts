import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { connectionsWithinFileLimit, DEFAULT_SERVER_LIMITS } from './server-limits.js';

describe('connectionsWithinFileLimit', () => {
  it('keeps a cap that fits the open-file limit, and any cap when the limit is unknown', () => {
    assert.equal(connectionsWithinFileLimit(DEFAULT_SERVER_LIMITS, { soft: 1_048_576 }), DEFAULT_SERVER_LIMITS);
    assert.equal(connectionsWithinFileLimit(DEFAULT_SERVER_LIMITS, undefined), DEFAULT_SERVER_LIMITS);
  });

  it('lowers a cap the open-file limit cannot hold, leaving descriptors for the rest, and says from what', () => {
    const limits = connectionsWithinFileLimit(DEFAULT_SERVER_LIMITS, { soft: 1024 });
    assert.deepEqual([limits.maxConnections, limits.clampedFrom], [768, DEFAULT_SERVER_LIMITS.maxConnections]);
  });
});
