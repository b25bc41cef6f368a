import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { AtRestDecryptionError, ENCRYPTED_VALUE_PREFIX, EnvelopeEncryption, type WrappingKey } from './envelope-encryption.js';

const key = (id: string): WrappingKey => ({ id, key: randomBytes(32) });
const KEY = '/vk8s/core/secrets/acme/default/vk8s/db';
const VALUE = JSON.stringify({ kind: 'Secret', data: { password: Buffer.from('marker-7f3a').toString('base64') } });

const refused = (message: RegExp) => (error: unknown): boolean => error instanceof AtRestDecryptionError && message.test(error.message);

/** The stored value with one byte of its payload flipped. */
function flipped(stored: string, at: number): string {
  const separator = stored.indexOf(':', ENCRYPTED_VALUE_PREFIX.length);
  const payload = Buffer.from(stored.slice(separator + 1), 'base64');
  payload[at] = (payload[at] ?? 0) ^ 1;
  return stored.slice(0, separator + 1) + payload.toString('base64');
}

describe('envelope encryption of stored values', () => {
  it('round-trips, with the prefix and the key id in the clear and neither the plaintext nor its base64 in the stored value', () => {
    const current = key('aaaa1111');
    const encryption = new EnvelopeEncryption({ current });
    const stored = encryption.toStorage(VALUE, KEY);
    assert.ok(stored.startsWith(`${ENCRYPTED_VALUE_PREFIX}aaaa1111:`), stored);
    assert.ok(!stored.includes('marker-7f3a') && !stored.includes(Buffer.from('marker-7f3a').toString('base64')));
    assert.equal(encryption.fromStorage(stored, KEY), VALUE);
    assert.equal(encryption.isCurrent(stored), true);
  });

  it('uses a fresh data key on every write: the same value twice stores two different values', () => {
    const encryption = new EnvelopeEncryption({ current: key('aaaa1111') });
    const first = encryption.toStorage(VALUE, KEY);
    const second = encryption.toStorage(VALUE, KEY);
    assert.notEqual(first, second);
    // The wrapped data keys differ, not just the data's nonces.
    assert.notEqual(first.slice(0, 100), second.slice(0, 100));
  });

  it('reads legacy plaintext values as they are, and does not count them as current', () => {
    const encryption = new EnvelopeEncryption({ current: key('aaaa1111') });
    assert.equal(encryption.fromStorage(VALUE, KEY), VALUE);
    assert.equal(encryption.isCurrent(VALUE), false);
  });

  it('refuses a value whose ciphertext, wrapped data key or key id was altered, naming the store key', () => {
    const current = key('aaaa1111');
    const encryption = new EnvelopeEncryption({ current });
    const stored = encryption.toStorage(VALUE, KEY);
    assert.throws(() => encryption.fromStorage(flipped(stored, 70), KEY), refused(/stored value of \/vk8s\/core\/secrets\/acme\/default\/vk8s\/db does not decrypt under key-encryption key aaaa1111: it was altered/));
    assert.throws(() => encryption.fromStorage(flipped(stored, 20), KEY), refused(/does not decrypt/));
    assert.throws(() => encryption.fromStorage(flipped(stored, Buffer.from(stored.split(':')[5] ?? '', 'base64').length - 1), KEY), refused(/does not decrypt/));
    assert.throws(() => encryption.fromStorage(`${ENCRYPTED_VALUE_PREFIX}aaaa1111:AAAA`, KEY), refused(/damaged: too short/));
    assert.throws(() => encryption.fromStorage(`${ENCRYPTED_VALUE_PREFIX}aaaa1111`, KEY), refused(/damaged: no key id/));
  });

  it('refuses a value copied under another store key (the store key is bound in)', () => {
    const encryption = new EnvelopeEncryption({ current: key('aaaa1111') });
    const stored = encryption.toStorage(VALUE, KEY);
    assert.throws(() => encryption.fromStorage(stored, `${KEY}-other`), refused(/db-other does not decrypt/));
  });

  it('reads values under a previous key after a rotation, writes under the new one, and counts only those as current', () => {
    const old = key('0ld0ld00');
    const before = new EnvelopeEncryption({ current: old });
    const stored = before.toStorage(VALUE, KEY);
    const rotated = new EnvelopeEncryption({ current: key('fe11fe11'), previous: [old] });
    assert.equal(rotated.fromStorage(stored, KEY), VALUE);
    assert.equal(rotated.isCurrent(stored), false);
    const rewritten = rotated.toStorage(rotated.fromStorage(stored, KEY), KEY);
    assert.ok(rewritten.startsWith(`${ENCRYPTED_VALUE_PREFIX}fe11fe11:`));
    assert.equal(rotated.isCurrent(rewritten), true);
    assert.equal(rotated.currentKeyId, 'fe11fe11');
  });

  it('refuses a value under a key it was not given, naming that key, the ones it has and the option that supplies it', () => {
    const stored = new EnvelopeEncryption({ current: key('0ld0ld00') }).toStorage(VALUE, KEY);
    const without = new EnvelopeEncryption({ current: key('fe11fe11') });
    assert.throws(() => without.fromStorage(stored, KEY), refused(/encrypted under key-encryption key 0ld0ld00, which this server was not given \(it has fe11fe11\): pass that key's file with --previous-kek-file/));
  });

  it('a key with the same id but other bytes does not open the value', () => {
    const stored = new EnvelopeEncryption({ current: key('aaaa1111') }).toStorage(VALUE, KEY);
    assert.throws(() => new EnvelopeEncryption({ current: key('aaaa1111') }).fromStorage(stored, KEY), refused(/does not decrypt/));
  });

  it('refuses keys that are not 32 bytes or whose id cannot be written in the prefix', () => {
    assert.throws(() => new EnvelopeEncryption({ current: { id: 'x', key: randomBytes(16) } }), /must be 32 bytes/);
    assert.throws(() => new EnvelopeEncryption({ current: { id: 'a:b', key: randomBytes(32) } }), /without ":"/);
  });
});
