import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crashes } from './crashes.js';

describe('reliability: crashes (short)', () => {
  it('server SIGKILLs on sqlite and etcd, and an etcd SIGKILL, lose no acknowledged write, never go back in revision, and every Deployment converges', async () => {
    const report = await crashes.run('short', () => {});
    assert.ok(report.ok, `${report.failures.join('\n')}\n${report.markdown.join('\n')}`);
    assert.match(report.markdown.join('\n'), /\| sqlite \| 2 server \| \d+ \| \d+ \| 0 \| 0 of 2 \|/);
    assert.match(report.markdown.join('\n'), /\| etcd \| 1 server \+ 1 etcd \| \d+ \| \d+ \| 0 \| 0 of 2 \|/);
  });
});
