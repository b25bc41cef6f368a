import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { startCompactor } from './compactor.js';
import { openMemoryStore } from './memory/index.js';

describe('compactor', () => {
  it('compacts at the revision that was current one interval earlier', async () => {
    const store = openMemoryStore();
    let kv = await store.create('/c/k', '0');
    const stop = startCompactor(store, { intervalMs: 60, logger: createLogger({ level: 'silent' }) });
    const firstTickRevision = kv.modRevision;
    for (let i = 1; i <= 10; i++) {
      kv = await store.update('/c/k', String(i), kv.modRevision);
      await new Promise((r) => setTimeout(r, 20));
    }
    await new Promise((r) => setTimeout(r, 150));
    stop();
    const compacted = await store.compactedRevision();
    assert.ok(compacted >= firstTickRevision, `compacted at ${compacted}`);
    assert.ok(compacted <= (await store.currentRevision()));
    assert.equal((await store.get('/c/k'))?.value, '10');
    await store.close();
  });
});
