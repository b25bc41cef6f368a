import assert from 'node:assert/strict';
import { it } from 'node:test';
import { fuzzArea } from './fuzz.js';

it('fuzz (short scale): no undocumented 5xx, nothing stored from refused requests, the server alive (one fixed seed; EDGEPLANE_FUZZ_SEED replays another)', { timeout: 120_000 }, async () => {
  const lines: string[] = [];
  const report = await fuzzArea.run('short', (line) => lines.push(line));
  assert.ok(report.ok, [...lines, ...report.markdown, ...report.failures].join('\n'));
  assert.match(report.markdown.join('\n'), /\| vK8s API \| 120 \|/);
});
