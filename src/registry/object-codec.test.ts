import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeyValue } from '../store/types.js';
import { ObjectCodec } from './object-codec.js';

const kv = (modRevision: number): KeyValue => ({
  key: '/vk8s/core/configmaps/acme/default/vk/c1',
  value: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { a: '1' } }),
  createRevision: 3,
  modRevision,
});

describe('ObjectCodec', () => {
  it('decode memoizes per KeyValue and sets the resourceVersion from the modRevision', () => {
    const codec = new ObjectCodec();
    const stored = kv(7);
    const first = codec.decode(stored);
    assert.equal(first.metadata.resourceVersion, '7');
    assert.equal(codec.decode(stored), first);
    assert.notEqual(codec.decode(kv(7)), first);
  });

  it('decodeOnce returns a fresh object each time, not the memoized one', () => {
    const codec = new ObjectCodec();
    const stored = kv(9);
    const shared = codec.decode(stored);
    const once = codec.decodeOnce(stored);
    assert.notEqual(once, shared);
    assert.deepEqual(once, shared);
    assert.equal(once.metadata.resourceVersion, '9');
    assert.notEqual(codec.decodeOnce(stored), once);
  });

  it('encode drops the resourceVersion, which the store keeps as the modRevision', () => {
    const codec = new ObjectCodec();
    const text = codec.encode(codec.decodeOnce(kv(4)));
    assert.equal((JSON.parse(text) as { metadata: Record<string, unknown> }).metadata['resourceVersion'], undefined);
  });
});
