import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { serveAgentMetrics } from './agent-metrics.js';

test('the agent serves its registry at GET /metrics on the address it was given, and nothing else', async () => {
  const metrics = await serveAgentMetrics({ host: '127.0.0.1', port: 0 }, createLogger({ level: 'silent' }));
  try {
    assert.match(metrics.address, /^127\.0\.0\.1:\d+$/);
    const page = await fetch(`http://${metrics.address}/metrics`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await page.text(), /^process_cpu_user_seconds_total \d/m);
    for (const [method, path] of [['GET', '/'], ['POST', '/metrics'], ['GET', '/metricsx']] as const) {
      const other = await fetch(`http://${metrics.address}${path}`, { method });
      assert.equal(other.status, 404, `${method} ${path}`);
      await other.text();
    }
  } finally {
    await metrics.close();
  }
  await assert.rejects(fetch(`http://${metrics.address}/metrics`), 'closed');
});
