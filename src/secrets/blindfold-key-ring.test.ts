import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fakeClock } from '../common/clock.js';
import { createLogger } from '../observability/logger.js';
import { openMemoryStore } from '../store/memory/index.js';
import { BLINDFOLD_KEYS_PREFIX, BlindfoldKeyRing, blindfoldKeyStoreKey, type StoredBlindfoldKey } from './blindfold-key-ring.js';
import { generateBlindfoldKeyPair } from './blindfold-key-pair.js';
import { SecretError } from './secret-error.js';
import { memoryKeySealer } from './testing/memory-key-sealer.js';

const logger = createLogger({ level: 'silent' });
const clock = fakeClock(new Date('2026-01-01T00:00:00Z'));

describe('BlindfoldKeyRing', () => {
  it('makes a tenant\'s first key once, even when two servers ask at the same time', async () => {
    const store = openMemoryStore();
    const sealer = memoryKeySealer();
    let generated = 0;
    const generate = (): ReturnType<typeof generateBlindfoldKeyPair> => (generated++, generateBlindfoldKeyPair());
    const a = new BlindfoldKeyRing({ store, sealer, clock, logger, generate });
    const b = new BlindfoldKeyRing({ store, sealer, clock, logger, generate });
    const answers = await Promise.all([a.current('acme'), b.current('acme'), a.current('acme'), b.current('acme')]);
    assert.equal(generated, 2, 'each server made one key pair; the loser dropped its own');
    assert.equal(new Set(answers.map((k) => k.public_key_pem)).size, 1);
    assert.deepEqual(answers.map((k) => k.version), [1, 1, 1, 1]);
    assert.equal((await store.list(BLINDFOLD_KEYS_PREFIX)).items.length, 1);
    const opened = await b.privateKey('acme', 1);
    assert.ok(opened.found && opened.key.type === 'private' && !opened.key.extractable);
  });

  it('stores the private key only sealed, bound to its store key', async () => {
    const store = openMemoryStore();
    const sealer = memoryKeySealer();
    const ring = new BlindfoldKeyRing({ store, sealer, clock, logger });
    await ring.current('acme');
    await ring.rotate('acme');
    const stored = (await store.list(BLINDFOLD_KEYS_PREFIX)).items;
    assert.deepEqual(stored.map((kv) => kv.key), [blindfoldKeyStoreKey('acme', 1), blindfoldKeyStoreKey('acme', 2)]);
    for (const kv of stored) {
      assert.doesNotMatch(kv.value, /PRIVATE KEY/);
      assert.match(kv.value, /BEGIN PUBLIC KEY/);
    }
    // Version 1's sealed key copied into version 3's place does not open: the AAD differs.
    const v1 = JSON.parse(stored[0]?.value ?? '') as StoredBlindfoldKey;
    await store.create(blindfoldKeyStoreKey('acme', 3), JSON.stringify({ ...v1, version: 3 }));
    const fresh = new BlindfoldKeyRing({ store, sealer, clock, logger });
    await assert.rejects(fresh.privateKey('acme', 3), (e: unknown) => e instanceof SecretError && e.code === 'Internal');
    assert.ok((await fresh.privateKey('acme', 1)).found);
  });

  it('rotation adds exactly one version per call, also when two servers rotate at once', async () => {
    const store = openMemoryStore();
    const sealer = memoryKeySealer();
    const a = new BlindfoldKeyRing({ store, sealer, clock, logger });
    const b = new BlindfoldKeyRing({ store, sealer, clock, logger });
    await a.current('acme');
    const versions = await Promise.all([a.rotate('acme'), b.rotate('acme')]);
    assert.deepEqual(versions.map((k) => k.version).sort(), [2, 3]);
    assert.equal((await b.current('acme')).version, 3);
    assert.equal((await a.current('acme')).version, 3, 'a sees b\'s rotation');
  });

  it('tells a tenant without keys from a version it does not have', async () => {
    const ring = new BlindfoldKeyRing({ store: openMemoryStore(), sealer: memoryKeySealer(), clock, logger });
    assert.deepEqual(await ring.privateKey('acme', 1), { found: false, reason: 'NoKeys' });
    await ring.current('acme');
    assert.deepEqual(await ring.privateKey('acme', 2), { found: false, reason: 'NoVersion' });
    assert.equal(await ring.version('acme', 2), undefined);
  });
});
