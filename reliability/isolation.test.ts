import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isolationArea } from './isolation.js';

describe('reliability area isolation', () => {
  it('isolation (short): every cross-boundary cell is denied and every own-boundary control allowed, against a real server', async () => {
    const report = await isolationArea.run('short', () => undefined);
    assert.deepEqual(report.failures, []);
    assert.equal(report.ok, true);
    assert.match(report.markdown.join('\n'), /\| \*\*all\*\* \| \d+ \|/);
  });
});
