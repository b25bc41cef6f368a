import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openMemoryStore } from '../store/memory/index.js';
import { PrefixCache } from '../store/prefix-cache.js';
import { AuthenticationMemo } from './authentication-memo.js';
import type { Principal } from './principal.js';

const principal: Principal = { tenant: 'acme', user: 'bot@acme', credential: 'bot', roles: { default: 'editor' } };

describe('AuthenticationMemo', () => {
  it('authenticated credentials are remembered only while the cache holds the same stored values, and until expiry', async () => {
    const store = openMemoryStore();
    const index = await store.create('/auth/tokens/abc', '{"tenant":"acme","name":"bot"}');
    const record = await store.create('/auth/credentials/acme/bot', '{"active":true}');
    const cache = new PrefixCache(store, '/auth/');
    await cache.start();
    const held = (key: string) => {
      const found = cache.lookup(key);
      assert.equal(found.state, 'present');
      return found.state === 'present' ? found.kv : index;
    };
    const tokens = new AuthenticationMemo(cache);
    tokens.remember('t1', { principal, index: held(index.key), record: held(record.key), expiresAtMs: 1000 });
    assert.equal(tokens.principalOf('t1', 999), principal);
    assert.equal(tokens.principalOf('t2', 999), undefined);
    assert.equal(tokens.principalOf('t1', 1000), undefined, 'expired');
    assert.equal(tokens.principalOf('t1', 0), undefined, 'an expired decision is forgotten');

    tokens.remember('t1', { principal, index: held(index.key), record: held(record.key), expiresAtMs: 1000 });
    const revoked = await store.update(record.key, '{"active":false}', record.modRevision);
    cache.observe({ kv: revoked });
    assert.equal(tokens.principalOf('t1', 0), undefined, 'the record changed: checked afresh');

    // A value read from the store that the cache does not hold is not remembered.
    tokens.remember('t3', { principal, index: { ...held(index.key) }, record: held(record.key), expiresAtMs: 1000 });
    assert.equal(tokens.principalOf('t3', 0), undefined);
    cache.stop();
    await store.close();
  });
});
