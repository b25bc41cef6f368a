import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOpenFileLimit } from './open-file-limit.js';

const LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max processes             63704                63704                processes
Max open files            1024                 524288               files
Max locked memory         8388608              8388608              bytes
`;

describe('parseOpenFileLimit', () => {
  it('reads the soft and hard limits of open files', () => {
    assert.deepEqual(parseOpenFileLimit(LIMITS), { soft: 1024, hard: 524288 });
  });

  it('reads unlimited as Infinity, and nothing from text without the line', () => {
    assert.deepEqual(parseOpenFileLimit('Max open files            unlimited            unlimited            files\n'), { soft: Infinity, hard: Infinity });
    assert.equal(parseOpenFileLimit('Max processes 1 1 processes\n'), undefined);
  });
});
