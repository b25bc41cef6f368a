import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { abusiveClients } from './abusive-clients.js';

describe('reliability: abusive clients (short scale)', () => {
  it('answers every well-behaved GET with 2xx during slowloris, idle connections and a non-reading watch, and stays alive', { timeout: 120_000 }, async () => {
    const report = await abusiveClients.run('short', () => {});
    assert.ok(report.ok, report.failures.join('\n'));
    assert.match(report.markdown.join('\n'), /\| \(b\) idle connections \|/);
  });
});
