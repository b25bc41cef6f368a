import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resizeMessage } from './attach-input.js';

test('resizeMessage: conmon\'s resize line (type 1, rows, columns), sides capped at 1000, empty sizes dropped', () => {
  assert.equal(resizeMessage({ width: 101, height: 33 }), '1 33 101\n');
  assert.equal(resizeMessage({ width: 5000, height: 40 }), '1 40 1000\n');
  assert.equal(resizeMessage({ width: 0, height: 40 }), undefined);
  assert.equal(resizeMessage({ width: 80, height: -1 }), undefined);
  assert.equal(resizeMessage({ width: Number.NaN, height: 24 }), undefined);
});
