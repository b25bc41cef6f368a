import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openMemoryStore } from '../store/memory/index.js';
import { WatchCache } from '../store/watch-cache.js';
import { strategyFor } from '../vk8s/kinds/index.js';
import { findResource } from '../vk8s/resources.js';
import { type ResourceType } from '../apimachinery/resource-type.js';
import { clusterPrefix, objectKey, resourcePrefix } from './keys.js';
import { ObjectCodec } from './object-codec.js';
import { watchObjects, type KubeWatchEvent } from './watch.js';

const configMaps = findResource('', 'v1', 'configmaps') as ResourceType;
const cluster = { tenant: 'acme', namespace: 'default', name: 'vk' };

describe('watchObjects', () => {
  it('watchObjects sends a BOOKMARK after each idle interval, and an event restarts the interval', async () => {
    const store = openMemoryStore();
    const cache = new WatchCache(store, resourcePrefix(configMaps));
    await cache.start();
    const controller = new AbortController();
    const source = { cache, codec: new ObjectCodec(), strategy: strategyFor(configMaps), prefix: clusterPrefix(configMaps, cluster) };
    const events = watchObjects(source, { signal: controller.signal, resourceVersion: String(cache.revision), bookmarkIntervalMs: 40 });
    const seen: Array<{ type: KubeWatchEvent['type']; at: number }> = [];
    const started = Date.now();
    const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', namespace: 'default' } });
    for await (const event of events) {
      seen.push({ type: event.type, at: Date.now() - started });
      // Two idle bookmarks in a row, then a write: its ADDED comes before the next bookmark.
      if (seen.length === 2) await store.create(objectKey(configMaps, cluster, 'c1'), value);
      if (seen.length === 4) break;
    }
    controller.abort();
    assert.deepEqual(seen.map((e) => e.type), ['BOOKMARK', 'BOOKMARK', 'ADDED', 'BOOKMARK']);
    const [first, second, added, last] = seen.map((e) => e.at) as [number, number, number, number];
    assert.ok(first >= 35 && second - first >= 35, `bookmarks after each idle interval (${first}, ${second} ms)`);
    assert.ok(last - added >= 35, `the event restarted the interval (${added}, ${last} ms)`);
    cache.stop();
    await store.close();
  });
});
