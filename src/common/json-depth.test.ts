import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { jsonDepthExceeds } from './json-depth.js';

const nested = (levels: number): unknown => JSON.parse('['.repeat(levels) + ']'.repeat(levels));

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays, not scalars', () => {
    assert.equal(jsonDepthExceeds(1, 0), false);
    assert.equal(jsonDepthExceeds({}, 0), true);
    assert.equal(jsonDepthExceeds({ a: { b: [1, 'x', null] } }, 3), false);
    assert.equal(jsonDepthExceeds({ a: { b: [1, 'x', null] } }, 2), true);
  });

  it('walks 100,000 levels without recursion', () => {
    assert.equal(jsonDepthExceeds(nested(100_000), 100), true);
    assert.equal(jsonDepthExceeds(nested(100), 100), false);
  });
});
