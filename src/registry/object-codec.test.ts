import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KeyValue, WatchEvent } from '../store/types.js';
import type { KubeObject } from '../apimachinery/object.js';
import { ObjectCodec } from './object-codec.js';
import { randomBytes } from 'node:crypto';
import { EnvelopeEncryption } from '../common/envelope-encryption.js';

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

  it('json is the text of the decoded object, resourceVersion included, built once per KeyValue', () => {
    const codec = new ObjectCodec();
    const stored = { ...kv(11), value: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { 'ä': 'ö' } }, data: { a: '€' } }) };
    const text = codec.json(stored);
    assert.equal(text.toString('utf8'), JSON.stringify(codec.decodeOnce(stored)));
    assert.equal((JSON.parse(text.toString('utf8')) as { metadata: { resourceVersion: string } }).metadata.resourceVersion, '11');
    assert.equal(codec.json(stored), text);
    assert.notEqual(codec.json({ ...stored }), text);
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

  it('decodeTransient shares a memoized object but never memoizes one itself', () => {
    const codec = new ObjectCodec();
    const stored = kv(5);
    const transient = codec.decodeTransient(stored);
    assert.equal(transient.metadata.resourceVersion, '5');
    const shared = codec.decode(stored);
    assert.notEqual(shared, transient, 'the transient decoding was not memoized');
    assert.equal(codec.decodeTransient(stored), shared, 'a memoized decoding is reused');
  });

  it('decodeChange memoizes with the watch cache event, never with the stored value it outlives', () => {
    const codec = new ObjectCodec();
    const stored = kv(6);
    const event: WatchEvent = { type: 'ADDED', key: stored.key, kv: stored, revision: 6 };
    const object = codec.decodeChange(event);
    assert.equal(object.metadata.resourceVersion, '6');
    assert.equal(codec.decodeChange(event), object, 'every watch of the event shares one object');
    assert.notEqual(codec.decode(stored), object, 'the stored value has no memoized object from the event');
    const again: WatchEvent = { type: 'ADDED', key: stored.key, kv: stored, revision: 6 };
    assert.equal(codec.decodeChange(again), codec.decode(stored), "a stored value's memoized object is reused");
    assert.equal(codec.eventLine('ADDED', object, event), codec.eventLine('ADDED', object, event), "the event's object is shared: its line is built once");
  });

  it("decodeBefore gives a MODIFIED event's previous value, memoized with the event", () => {
    const codec = new ObjectCodec();
    const prev = kv(3);
    const next = { ...kv(4), value: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1', labels: { v: '2' } } }) };
    const event: WatchEvent = { type: 'MODIFIED', key: next.key, kv: next, prev, revision: 4 };
    const before = codec.decodeBefore(event);
    assert.equal(before.metadata.resourceVersion, '3');
    assert.equal(before.metadata.labels, undefined);
    assert.equal(codec.decodeBefore(event), before);
    assert.deepEqual(codec.decodeChange(event).metadata.labels, { v: '2' });
    assert.notEqual(codec.decode(prev), before);
  });

  it('encode drops the resourceVersion, which the store keeps as the modRevision', () => {
    const codec = new ObjectCodec();
    const text = codec.encode(codec.decodeOnce(kv(4)), kv(4).key);
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

  it('eventLine encodes a shared object once per event type, and never remembers objects it did not hand out', () => {
    const codec = new ObjectCodec();
    const shared = codec.decode(kv(7));
    const line = codec.eventLine('ADDED', shared);
    assert.equal(line.toString(), `${JSON.stringify({ type: 'ADDED', object: shared })}\n`);
    assert.equal(codec.eventLine('ADDED', shared), line);
    assert.equal(codec.eventLine('MODIFIED', shared).toString(), `${JSON.stringify({ type: 'MODIFIED', object: shared })}\n`);
    const mine = codec.decodeOnce(kv(7));
    const before = codec.eventLine('ADDED', mine);
    mine.metadata.name = 'renamed';
    assert.notEqual(codec.eventLine('ADDED', mine), before);
    assert.match(codec.eventLine('ADDED', mine).toString(), /"renamed"/);
  });

  it('eventLine remembers only the most recent shared objects', () => {
    const codec = new ObjectCodec({ lineMemo: 2 });
    const [a, b, c] = [kv(1), kv(2), kv(3)].map((x) => codec.decode(x));
    const first = codec.eventLine('ADDED', a!);
    codec.eventLine('ADDED', b!);
    assert.equal(codec.eventLine('ADDED', a!), first);
    codec.eventLine('ADDED', c!);
    const again = codec.eventLine('ADDED', a!);
    assert.notEqual(again, first, 'a was the oldest of three: encoded again');
    assert.deepEqual(again, first);
  });

  it('eventLine remembers the line of a watch cache event with that event, however many other objects are encoded since', () => {
    const codec = new ObjectCodec({ lineMemo: 2 });
    const stored = [kv(1), kv(2), kv(3)];
    const events: WatchEvent[] = stored.map((x) => ({ type: 'ADDED', key: x.key, kv: x, revision: x.modRevision }));
    // Two watches far behind, each going through the three events in order (a scan that a
    // memo of the two most recent objects would miss every time).
    const scan = (): Buffer[] => stored.map((x, i) => codec.eventChunk('ADDED', codec.decode(x), events[i]));
    const first = scan();
    const second = scan();
    second.forEach((chunk, i) => assert.equal(chunk, first[i], 'the same bytes, encoded once'));
    const retyped = codec.eventLine('DELETED', codec.decode(stored[0] as KeyValue), events[0]);
    assert.match(retyped.toString(), /^\{"type":"DELETED"/, 'one line per cause and type');
    const mine = structuredClone(codec.decode(stored[0] as KeyValue));
    assert.notEqual(codec.eventChunk('ADDED', mine, events[0]), first[0], 'an object the codec did not share is encoded as it is');
  });

  it('eventChunk frames the event line as one HTTP chunk, and joinChunks shares the join of the same group', () => {
    const codec = new ObjectCodec();
    const [a, b] = [kv(1), kv(2)].map((x) => codec.decode(x)) as [KubeObject, KubeObject];
    const line = codec.eventLine('ADDED', a);
    assert.equal(codec.eventChunk('ADDED', a).toString(), `${line.length.toString(16)}\r\n${line.toString()}\r\n`);
    const group = [codec.eventChunk('ADDED', a), codec.eventChunk('MODIFIED', b)];
    const joined = codec.joinChunks(group);
    assert.deepEqual(joined, Buffer.concat(group));
    assert.equal(codec.joinChunks([...group]), joined, 'the same chunks: the same buffer');
    assert.notEqual(codec.joinChunks([group[1] as Buffer, group[0] as Buffer]), joined);
  });

  describe('with a transformer (Secrets: encrypted at rest)', () => {
    const KEY = '/vk8s/core/secrets/acme/default/vk/s1';
    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', resourceVersion: '9' }, data: { token: Buffer.from('marker-c0dec').toString('base64') } };
    const old = { id: 'o1d', key: randomBytes(32) };
    const current = { id: 'n3w', key: randomBytes(32) };

    it('encodes into an encrypted value bound to the key and decodes it on every path, resourceVersion from the store', () => {
      const codec = new ObjectCodec({ transformer: new EnvelopeEncryption({ current }) });
      const value = codec.encode(secret, KEY);
      assert.ok(value.startsWith('k8s:enc:aesgcm:v1:n3w:'));
      assert.ok(!value.includes('marker-c0dec') && !value.includes(secret.data.token));
      const stored: KeyValue = { key: KEY, value, createRevision: 12, modRevision: 12 };
      const expected = { ...secret, metadata: { name: 's1', resourceVersion: '12' } };
      assert.deepEqual(codec.decode(stored), expected);
      assert.deepEqual(codec.decodeOnce(stored), expected);
      assert.deepEqual(codec.decodeTransient(stored), expected);
      assert.deepEqual(JSON.parse(codec.json(stored).toString('utf8')), expected);
      assert.deepEqual(codec.decodeDeleted(stored, 14).data, secret.data);
      assert.throws(() => codec.decodeOnce({ ...stored, key: `${KEY}x` }), /does not decrypt/);
      // A codec without the transformer cannot read it (and so is never given Secrets).
      assert.throws(() => new ObjectCodec().decodeOnce(stored), SyntaxError);
    });

    it('reads legacy plaintext values; reencoded rewrites those and older keys\' values, and nothing under the current key', () => {
      const before = new ObjectCodec({ transformer: new EnvelopeEncryption({ current: old }) });
      const codec = new ObjectCodec({ transformer: new EnvelopeEncryption({ current, previous: [old] }) });
      const plain: KeyValue = { key: KEY, value: new ObjectCodec().encode(secret, KEY), createRevision: 3, modRevision: 3 };
      const underOld: KeyValue = { ...plain, value: before.encode(secret, KEY) };
      assert.deepEqual(codec.decodeOnce(plain).data, secret.data);
      assert.deepEqual(codec.decodeOnce(underOld).data, secret.data);
      for (const stale of [plain, underOld]) {
        const rewritten = codec.reencoded(stale) ?? assert.fail('not rewritten');
        assert.ok(rewritten.startsWith('k8s:enc:aesgcm:v1:n3w:'));
        assert.deepEqual(codec.decodeOnce({ ...stale, value: rewritten }).data, secret.data);
        assert.equal(codec.reencoded({ ...stale, value: rewritten }), undefined);
      }
      assert.equal(new ObjectCodec().reencoded(plain), undefined);
    });
  });
});
