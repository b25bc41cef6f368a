import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSelector } from '../apimachinery/labels/selector.js';
import { openMemoryStore } from '../store/memory/index.js';
import { eventually } from '../store/testing/watch-helpers.js';
import type { KeyValue } from '../store/types.js';
import { WatchCache } from '../store/watch-cache.js';
import { strategyFor } from '../vk8s/kinds/index.js';
import { findResource } from '../vk8s/resources.js';
import { type ResourceType } from '../apimachinery/resource-type.js';
import { clusterPrefix, objectKey, resourcePrefix } from './keys.js';
import { ObjectCodec } from './object-codec.js';
import { openWatch, type KubeWatchEvent, type KubeWatchSink } from './open-watch.js';

const configMaps = findResource('', 'v1', 'configmaps') as ResourceType;
const cluster = { tenant: 'acme', namespace: 'default', name: 'vk' };
const key = (name: string): string => objectKey(configMaps, cluster, name);
const value = (name: string, app: string): string => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default', labels: { app } } });

/** A sink that records `TYPE name` and, while `blocked`, reports a backlog until released. */
class Recorder implements KubeWatchSink {
  readonly seen: string[] = [];
  blocked = false;
  ended = false;
  private release: (() => void) | undefined;

  get backlog(): number {
    return this.blocked ? 1 : 0;
  }

  event(event: KubeWatchEvent): void {
    const name = (event.object as { metadata?: { name?: string } }).metadata?.name ?? '';
    this.seen.push(event.type === 'ERROR' ? `ERROR ${String(event.object['code'])}` : `${event.type} ${name}`);
  }

  flush(): void {
    // Recorded as they come.
  }

  drained(): Promise<void> {
    return new Promise((resolve) => (this.release = resolve));
  }

  unblock(): void {
    this.blocked = false;
    this.release?.();
  }

  end(): void {
    this.ended = true;
  }
}

async function started(history?: number): Promise<{ cache: WatchCache; write: (name: string, app: string) => Promise<KeyValue>; close: () => Promise<void> }> {
  const store = openMemoryStore();
  const cache = new WatchCache(store, resourcePrefix(configMaps), history === undefined ? {} : { history });
  await cache.start();
  const write = async (name: string, app: string): Promise<KeyValue> => {
    const current = await store.get(key(name));
    const kv = current === undefined ? await store.create(key(name), value(name, app)) : await store.update(key(name), value(name, app), current.modRevision);
    await eventually(() => cache.revision >= kv.modRevision);
    await new Promise((resolve) => setImmediate(resolve)); // the cache fans out at the next tick
    return kv;
  };
  return { cache, write, close: async () => (cache.stop(), await store.close()) };
}

describe('openWatch', () => {
  it('openWatch sends synthetic ADDED with backpressure, then the changes after them, with selection transitions', async () => {
    const { cache, write, close } = await started();
    await write('a1', 'a');
    await write('b1', 'b');
    await write('a2', 'a');
    const source = { cache, codec: new ObjectCodec(), strategy: strategyFor(configMaps), prefix: clusterPrefix(configMaps, cluster) };
    const sink = new Recorder();
    sink.blocked = true;
    const watch = openWatch(source, { labelSelector: parseSelector('app=a') }, sink);
    assert.deepEqual(sink.seen, ['ADDED a1'], 'the next ADDED waits for the sink to drain');
    await write('a3', 'a');
    sink.unblock();
    await eventually(() => sink.seen.length === 3);
    assert.deepEqual(sink.seen, ['ADDED a1', 'ADDED a2', 'ADDED a3'], 'a change during the initial state follows it');
    await write('b1', 'a');
    await write('a1', 'b');
    await write('a2', 'a');
    assert.deepEqual(sink.seen.slice(3), ['ADDED b1', 'DELETED a1', 'MODIFIED a2']);
    watch.close();
    await write('a2', 'a');
    assert.equal(sink.seen.length, 6, 'nothing after close');
    assert.equal(sink.ended, false);
    await close();
  });

  it('openWatch gives one ERROR 410 and the end for a resourceVersion before the window', async () => {
    const { cache, write, close } = await started(2);
    const first = await write('c', 'a');
    for (let i = 0; i < 4; i++) await write('c', 'a');
    const sink = new Recorder();
    openWatch({ cache, codec: new ObjectCodec(), strategy: strategyFor(configMaps), prefix: clusterPrefix(configMaps, cluster) }, { resourceVersion: String(first.modRevision) }, sink);
    assert.deepEqual(sink.seen, ['ERROR 410']);
    assert.equal(sink.ended, true);
    await close();
  });

  it('openWatch rejects a malformed resourceVersion before any event', async () => {
    const { cache, close } = await started();
    const sink = new Recorder();
    assert.throws(() => openWatch({ cache, codec: new ObjectCodec(), strategy: strategyFor(configMaps), prefix: clusterPrefix(configMaps, cluster) }, { resourceVersion: 'x1' }, sink), /resourceVersion: Invalid value/);
    assert.deepEqual(sink.seen, []);
    await close();
  });
});
