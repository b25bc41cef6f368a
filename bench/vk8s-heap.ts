import { getHeapStatistics } from 'node:v8';
import type { HttpsResponse } from '../src/client/https-client.js';
import { progress, type Row } from './stats.js';

/** What the heap measurement needs of the control plane under test (in this process). */
export interface HeapSubject {
  call(method: string, path: string, body?: string): Promise<HttpsResponse>;
}

/** The live heap after full collections (the watch caches, informers and graphs that each major GC marks). */
async function liveHeap(gc: () => void): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return getHeapStatistics().used_heap_size;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * The control plane's live heap per ConfigMap it holds (with the `Placed` Event the placement
 * recorder writes for it), next to the JSON of the two as the API serves them: N creates in a
 * cluster of their own, until every Event is there, then full collections before and after.
 * Marking time in a major GC grows with this heap; the watch fan-out's tail depends on it.
 */
export async function heapPerObject(s: HeapSubject, paths: { configMaps: string; events: string }, objects: number, body: (name: string) => string): Promise<Row[]> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the heap measurement needs node --expose-gc (npm run bench passes it)');
  // Not counted: the first objects of a cluster bring one-time costs (compiled code, the
  // cluster's own structures) that a long-running server has paid already.
  const warmup = Math.max(100, Math.round(objects / 10));
  // A paged list is read from the store and decoded without memoizing: a list from the watch
  // cache would leave a decoded copy of every Event in the heap being measured.
  const count = async (path: string): Promise<number> => {
    const r = await s.call('GET', `${path}?limit=${(objects + warmup) * 2}`);
    if (r.status !== 200) throw new Error(`list ${path}: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
    return r.json<{ items: unknown[] }>().items.length;
  };
  const create = async (from: number, to: number): Promise<void> => {
    for (let i = from; i < to; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, to - i) }, async (_, k) => {
          const r = await s.call('POST', paths.configMaps, body(`heap-${i + k}`));
          if (r.status !== 201) throw new Error(`create: HTTP ${r.status}: ${r.body.slice(0, 300)}`);
        }),
      );
    }
    await waitFor(`${to} Placed events`, async () => (await count(paths.events)) >= to, 60_000);
  };
  progress(`heap: creating ${warmup} ConfigMaps (not counted), then ${objects}, each time until their Placed events are in`);
  await create(0, warmup);
  const before = await liveHeap(gc);
  await create(warmup, warmup + objects);
  const after = await liveHeap(gc);
  const json = (await s.call('GET', `${paths.configMaps}/heap-${warmup}`)).body.length + JSON.stringify((await s.call('GET', `${paths.events}?limit=1`)).json<{ items: unknown[] }>().items[0]).length;
  const perObject = (after - before) / objects;
  return [
    {
      area: 'vk8s',
      measure: `live heap per ConfigMap and its Placed Event (${objects} of them, after full GCs)`,
      value: `${(perObject / 1024).toFixed(1)} KiB`,
      baseline: `${(json / 1024).toFixed(1)} KiB of their JSON`,
      ratio: `${(perObject / json).toFixed(2)}×`,
    },
  ];
}
