import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlacedObjectCache } from './placed-object-cache.js';
import type { PlacedObjectKind, PlacedObjects } from './site-api-client.js';

const cluster = { tenant: 'acme', namespace: 'shop', name: 'vk' };

function configMaps(value: string): PlacedObjects {
  return { items: [{ cluster, sites: ['edge'], object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'settings' }, data: { value } } }] } as unknown as PlacedObjects;
}

describe('PlacedObjectCache', () => {
  it('serves the objects read last while the control plane cannot be read, at once after the first failure, and fresh ones once it answers', async () => {
    let now = 0;
    let down = false;
    let value = 'one';
    let reads = 0;
    const stale: unknown[] = [];
    let release: (() => void) | undefined;
    const list = (kind: PlacedObjectKind): Promise<PlacedObjects> => {
      reads++;
      if (down) return new Promise((_resolve, reject) => (release = () => reject(new Error('connect ECONNREFUSED'))));
      return Promise.resolve(kind === 'configmaps' ? configMaps(value) : { items: [] } as unknown as PlacedObjects);
    };
    const cache = new PlacedObjectCache(list, () => now, 5000, (error) => stale.push(error));
    const valueOf = async (): Promise<unknown> => ((await cache.of(cluster)).configMap('shop', 'settings') as { data?: { value?: string } } | undefined)?.data?.value;
    assert.equal(await valueOf(), 'one');
    down = true;
    now += 6000;
    const first = valueOf();
    release?.();
    assert.equal(await first, 'one', 'the first failed read: the objects read before');
    assert.equal(stale.length, 1);
    // Reads keep failing (and may hang on a cut link): callers no longer wait for them.
    now += 6000;
    const before = reads;
    assert.equal(await valueOf(), 'one');
    assert.equal(reads, before + 1, 'a read tried behind the caller');
    release?.();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stale.length, 1, 'told once per outage');
    down = false;
    value = 'two';
    now += 6000;
    await valueOf();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await valueOf(), 'two', 'fresh again once the control plane answers');
  });

  it('fails when nothing was ever read', async () => {
    const cache = new PlacedObjectCache(() => Promise.reject(new Error('connect ECONNREFUSED')), () => 0);
    await assert.rejects(cache.of(cluster), /ECONNREFUSED/);
  });
});
