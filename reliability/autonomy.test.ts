import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { autonomyArea } from './autonomy.js';

describe('reliability: autonomy (short)', () => {
  it('a runc site keeps serving through an agent kill, a control-plane kill, a link cut, an agent restart without the control plane and a machine-like restart: no failed call, pods Ready within 5 s, none restarted or moved', async () => {
    const progress: string[] = [];
    const report = await autonomyArea.run('short', (line) => progress.push(line));
    assert.ok(report.ok, `${report.failures.join('\n')}\n${report.markdown.join('\n')}\n${progress.join('\n')}`);
    assert.match(report.markdown.join('\n'), /\| agent SIGKILL and restart \| [^|]+ \| \d+ \| 0 \|/);
  });
});
