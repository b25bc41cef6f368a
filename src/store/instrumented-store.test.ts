import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createMetrics } from '../observability/metrics.js';
import { instrumentStore } from './instrumented-store.js';
import { openMemoryStore } from './memory/index.js';
import { describeStoreConformance } from './testing/conformance.js';

describeStoreConformance('memory, instrumented', {
  open: () => Promise.resolve(instrumentStore(openMemoryStore(), 'memory', createMetrics({ version: 't', gitCommit: 't' }))),
});

describe('instrumented store', () => {
  it('counts operations by result and tracks open watches', async () => {
    const metrics = createMetrics({ version: 't', gitCommit: 't' });
    const store = instrumentStore(openMemoryStore(), 'memory', metrics);
    await store.create('/m/a', '1');
    await assert.rejects(store.create('/m/a', '1'));
    const controller = new AbortController();
    const iterator = store.watch('/m/', { signal: controller.signal })[Symbol.asyncIterator]();
    const pending = iterator.next();
    await new Promise((r) => setImmediate(r));
    const text = await metrics.registry.metrics();
    assert.match(text, /edgeplane_store_operations_total\{backend="memory",operation="create",result="ok"\} 1/);
    assert.match(text, /edgeplane_store_operations_total\{backend="memory",operation="create",result="KeyExists"\} 1/);
    assert.match(text, /edgeplane_store_watches\{backend="memory"\} 1/);
    controller.abort();
    await pending;
    assert.match(await metrics.registry.metrics(), /edgeplane_store_watches\{backend="memory"\} 0/);
    await store.close();
  });
});
