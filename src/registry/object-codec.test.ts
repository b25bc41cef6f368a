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

  it('decodeDeleted gives every watch the same object at the deletion revision', () => {
    const codec = new ObjectCodec();
    const prev = kv(5);
    const deleted = codec.decodeDeleted(prev, 8);
    assert.equal(deleted.metadata.resourceVersion, '8');
    assert.equal(codec.decodeDeleted(prev, 8), deleted);
    assert.equal(codec.decodeDeleted(prev, 9).metadata.resourceVersion, '9');
    assert.equal(codec.decodeDeleted(prev, 8), deleted);
  });

  it('json serializes a shared object once, and never remembers objects it did not hand out', () => {
    const codec = new ObjectCodec({ jsonMemo: 2 });
    const shared = codec.decode(kv(7));
    const text = codec.json(shared);
    assert.deepEqual(JSON.parse(text), shared);
    assert.equal(codec.json(shared), text);
    const mine = codec.decodeOnce(kv(7));
    const before = codec.json(mine);
    mine.metadata.name = 'renamed';
    assert.notEqual(codec.json(mine), before);
    assert.match(codec.json(mine), /"renamed"/);
  });

  it('json remembers only the most recent shared objects', (t) => {
    const codec = new ObjectCodec({ jsonMemo: 2 });
    const [a, b, c] = [kv(1), kv(2), kv(3)].map((x) => codec.decode(x));
    const stringify = t.mock.method(JSON, 'stringify');
    for (const object of [a, b, a, b]) codec.json(object!);
    assert.equal(stringify.mock.callCount(), 2);
    codec.json(c!);
    codec.json(a!);
    assert.equal(stringify.mock.callCount(), 4, 'a was the oldest of three: serialized again');
  });
});
