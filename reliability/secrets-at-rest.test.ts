import assert from 'node:assert/strict';
import { it } from 'node:test';
import { secretsAtRestArea } from './secrets-at-rest.js';

it('secrets-at-rest (short): no secret value in the store files of sqlite or etcd, every secret reads back', async () => {
  const lines: string[] = [];
  const report = await secretsAtRestArea.run('short', (line) => lines.push(line));
  assert.ok(report.ok, `${report.failures.join('\n')}\n${report.markdown.join('\n')}`);
  assert.match(report.markdown.join('\n'), /\| sqlite \| 20 \| 20 \| 1 \| \d+ \| \d+ \| 0 \| [1-9]\d* \|/);
  assert.match(report.markdown.join('\n'), /\| etcd \| 20 \| 20 \| 1 \| \d+ \| \d+ \| 0 \| [1-9]\d* \|/);
});
