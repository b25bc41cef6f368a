import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeTimers } from '../../common/testing/fake-timers.js';
import { ENTRY_OVERHEAD_BYTES, MAX_SECRET_CACHE_ENTRIES, SecretCache, slotOf } from './secret-cache.js';

const HOUR = 3_600_000;

describe('SecretCache', () => {
  it('SecretCache answers a copy of what it holds until the timeout, and counts hits and misses', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers);
    const value = Buffer.from('s3cret');
    cache.set('k', value, 1000);
    value.fill(0);
    const hit = cache.get('k');
    assert.equal(hit?.toString(), 's3cret', 'the cache keeps its own copy');
    hit?.fill(0);
    assert.equal(cache.get('k')?.toString(), 's3cret', 'the caller gets a copy');
    assert.equal(cache.get('other'), undefined);
    assert.deepEqual(cache.stats(), { entries: 1, bytes: 6 + 1 + ENTRY_OVERHEAD_BYTES, hits: 2, misses: 1, expired: 0, evicted: 0 });
    cache.clear();
  });

  it('SecretCache.read applies a function to the held value without a copy, only while it lives, and counts like get', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers);
    cache.set('k', Buffer.from('s3cret'), 1000);
    let seen: Buffer | undefined;
    assert.equal(cache.read('k', (v) => ((seen = v), v.toString('base64'))), Buffer.from('s3cret').toString('base64'));
    assert.equal(cache.read('other', () => 'never'), undefined);
    timers.advance(1000);
    assert.equal(cache.read('k', () => 'never'), undefined, 'expired at the deadline');
    assert.deepEqual(seen, Buffer.alloc(6), 'the buffer read was the cache\'s own, zeroed when the entry went');
    assert.deepEqual(cache.stats(), { entries: 0, bytes: 0, hits: 1, misses: 2, expired: 1, evicted: 0 });
  });

  it('SecretCache drops an entry when its timeout passes, by timer (no read needed) and on a read at the deadline', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers);
    cache.set('short', Buffer.from('a'), 30_000);
    cache.set('long', Buffer.from('b'), 6 * HOUR);
    timers.advance(29_999);
    assert.equal(cache.get('short')?.toString(), 'a');
    timers.advance(1);
    assert.equal(cache.stats().entries, 1, 'the timer dropped the expired entry');
    assert.equal(cache.get('short'), undefined);
    timers.advance(6 * HOUR - 30_001);
    assert.equal(cache.get('long')?.toString(), 'b');
    assert.deepEqual(timers.pending(), [1], 'one timer, at the next expiry');
    timers.advance(1);
    assert.deepEqual([cache.stats().entries, cache.stats().bytes, cache.stats().expired, timers.pending().length], [0, 0, 2, 0]);
  });

  it('SecretCache overwrites dropped values with zeros', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers, { maxEntries: 1 });
    const held: Buffer[] = [];
    // The stored copies are private: reach them to see what is left in memory after they are dropped.
    cache.set('a', Buffer.from('first'), HOUR);
    const entries = (cache as unknown as { entries: Map<string, { value: Buffer }> }).entries;
    held.push((entries.get('a') as { value: Buffer }).value);
    cache.set('b', Buffer.from('second'), HOUR);
    held.push((entries.get('b') as { value: Buffer }).value);
    timers.advance(HOUR);
    assert.deepEqual(held.map((b) => [...b].every((x) => x === 0)), [true, true], 'evicted and expired values are zeroed');
  });

  it('SecretCache a read past the deadline misses even when the timer has not run', () => {
    let now = 0;
    const cache = new SecretCache({ now: () => now, schedule: () => () => undefined });
    cache.set('k', Buffer.from('v'), 1000);
    now = 1000;
    assert.equal(cache.get('k'), undefined);
    assert.deepEqual([cache.stats().entries, cache.stats().expired], [0, 1]);
  });

  it('SecretCache keeps nothing for a timeout of 0 or a value larger than the byte limit', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers, { maxBytes: 100 });
    cache.set('zero', Buffer.from('v'), 0);
    cache.set('big', Buffer.alloc(100 - ENTRY_OVERHEAD_BYTES), HOUR);
    assert.deepEqual([cache.get('zero'), cache.get('big'), cache.stats().entries, timers.pending().length], [undefined, undefined, 0, 0]);
    const off = new SecretCache(timers, { maxEntries: 0 });
    off.set('k', Buffer.from('v'), HOUR);
    assert.equal(off.get('k'), undefined, 'maxEntries 0 disables the cache');
  });

  it('SecretCache evicts the least recently used entry at the entry limit', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers, { maxEntries: 3 });
    for (const k of ['a', 'b', 'c']) cache.set(k, Buffer.from(k), HOUR);
    assert.ok(cache.get('a'), 'a is now the most recently used');
    cache.set('d', Buffer.from('d'), HOUR);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => cache.get(k)?.toString()), ['a', undefined, 'c', 'd']);
    assert.deepEqual([cache.stats().entries, cache.stats().evicted], [3, 1]);
    cache.clear();
  });

  it('SecretCache evicts least recently used entries until a new one fits the byte limit', () => {
    const timers = fakeTimers();
    const size = (n: number): number => n + 1 + ENTRY_OVERHEAD_BYTES;
    const cache = new SecretCache(timers, { maxBytes: size(100) * 3 });
    for (const k of ['a', 'b', 'c']) cache.set(k, Buffer.alloc(100, k), HOUR);
    assert.equal(cache.stats().bytes, size(100) * 3);
    cache.set('d', Buffer.alloc(250, 'd'), HOUR);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((k) => cache.get(k) !== undefined), [false, false, true, true]);
    assert.ok(cache.stats().bytes <= size(100) * 3);
    assert.equal(cache.stats().bytes, size(100) + size(250));
    cache.clear();
  });

  it('SecretCache replacing a key keeps one entry and the right byte count', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers);
    cache.set('k', Buffer.from('one'), HOUR);
    cache.set('k', Buffer.from('three'), 2 * HOUR);
    assert.deepEqual([cache.stats().entries, cache.stats().bytes, cache.get('k')?.toString()], [1, 5 + 1 + ENTRY_OVERHEAD_BYTES, 'three']);
    timers.advance(HOUR);
    assert.equal(cache.get('k')?.toString(), 'three', 'the new timeout counts');
    cache.clear();
    assert.deepEqual([cache.stats().entries, timers.pending().length], [0, 0]);
  });

  it('SecretCache reaches a timeout longer than a node timer can wait in steps', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers);
    const days = 40 * 24 * HOUR;
    cache.set('k', Buffer.from('v'), days);
    assert.ok(Math.max(...timers.pending()) < 2 ** 31, 'no timer beyond 2^31 − 1 ms');
    timers.advance(days - 1);
    assert.equal(cache.get('k')?.toString(), 'v');
    timers.advance(1);
    assert.equal(cache.stats().entries, 0);
  });

  it('SecretCache answers a long key only for that whole key, also when another shares its tail (which the map indexes by)', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers);
    const tail = `${'t'.repeat(60)}\nEncodingNone`;
    const first = `string:///${'A'.repeat(2000)}${tail}`;
    const second = `string:///${'B'.repeat(2000)}${tail}`;
    assert.equal(slotOf(first), slotOf(second), 'the two keys share a slot');
    cache.set(first, Buffer.from('one'), HOUR);
    assert.equal(cache.get(second), undefined, 'a key with the same tail is a miss, not the other value');
    assert.equal(cache.get(`${first.slice(0, 100)}${tail}`), undefined);
    assert.equal(cache.get(`string:///${'A'.repeat(2000)}${tail}`)?.toString(), 'one', 'the same key built again (another string) finds it');
    cache.set(second, Buffer.from('two'), HOUR);
    assert.deepEqual([cache.get(first), cache.get(second)?.toString()], [undefined, 'two'], 'the later replaced the earlier');
    assert.deepEqual([cache.stats().entries, cache.stats().bytes, cache.stats().evicted], [1, 3 + second.length + ENTRY_OVERHEAD_BYTES, 1]);
    cache.clear();
  });

  it('SecretCache refuses limits it cannot hold: negative, fractional, or more entries than it allocates lists for', () => {
    const timers = fakeTimers();
    assert.throws(() => new SecretCache(timers, { maxBytes: -1 }), /whole numbers, zero or more/);
    assert.throws(() => new SecretCache(timers, { maxEntries: 1.5 }), /whole numbers, zero or more/);
    assert.throws(() => new SecretCache(timers, { maxEntries: MAX_SECRET_CACHE_ENTRIES + 1 }), /at most 1048576 entries/);
    const off = new SecretCache(timers, { maxBytes: 0 });
    off.set('k', Buffer.from('v'), HOUR);
    assert.deepEqual([off.get('k'), off.stats().entries, timers.pending().length], [undefined, 0, 0], 'maxBytes 0 disables the cache');
  });

  it('SecretCache a key that only shares the slot of an entry does not make that entry recently used', () => {
    const timers = fakeTimers();
    const cache = new SecretCache(timers, { maxEntries: 2 });
    const tail = 't'.repeat(60);
    const a = `${'A'.repeat(100)}${tail}`;
    cache.set(a, Buffer.from('a'), HOUR);
    cache.set('b', Buffer.from('b'), HOUR);
    assert.equal(cache.get(`${'X'.repeat(100)}${tail}`), undefined, 'a miss');
    cache.set('c', Buffer.from('c'), HOUR);
    assert.deepEqual([cache.get(a), cache.get('b')?.toString(), cache.get('c')?.toString()], [undefined, 'b', 'c'], 'a stayed the least recently used and went first');
    cache.clear();
  });
});
