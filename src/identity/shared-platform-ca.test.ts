import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from '../store/open-store.js';
import { PLATFORM_CA_KEY, type PlatformCaRecord } from './identity-records.js';
import { loadKeyEncryptionKey } from './key-encryption-key.js';
import { ensurePlatformPki } from './platform-ca.js';
import { loadSharedPlatformCa } from './shared-platform-ca.js';

const now = new Date();

describe('the platform CA shared through the store', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-shared-ca-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const kek = loadKeyEncryptionKey({ home: join(root, 'operator') });

  it('is made once when servers start together on an empty store; each server signs its own serving certificate with it', async () => {
    const store = openStore({ backend: 'memory' });
    try {
      const dirs = ['a', 'b', 'c', 'd'].map((name) => join(root, 'race', name, 'pki'));
      const loaded = await Promise.all(dirs.map((dir) => loadSharedPlatformCa({ store, kek, dir, now })));
      assert.equal(new Set(loaded.map((l) => l.ca.certificate)).size, 1, 'one CA');
      assert.equal(new Set(loaded.map((l) => l.ca.key)).size, 1);
      assert.deepEqual(loaded.map((l) => l.origin).sort(), ['created', 'stored', 'stored', 'stored']);
      const kv = await store.get(PLATFORM_CA_KEY);
      assert.ok(kv !== undefined);
      assert.doesNotMatch(kv.value, /PRIVATE KEY/, 'the key is sealed');
      assert.equal((JSON.parse(kv.value) as PlatformCaRecord).origin, 'generated');

      const pkis = await Promise.all(dirs.slice(0, 2).map((dir, i) => ensurePlatformPki({ dir, hosts: [`10.0.0.${i + 1}`], ca: loaded[i]?.ca })));
      const ca = new X509Certificate(loaded[0]?.ca.certificate ?? '');
      for (const [i, pki] of pkis.entries()) {
        assert.equal(readFileSync(pki.caCertPath, 'utf8'), ca.toString(), 'ca.crt is the shared CA');
        assert.equal(existsSync(join(dirs[i] ?? '', 'ca.key')), false, 'the key stays in the store');
        const serving = new X509Certificate(pki.servingCert);
        assert.ok(serving.verify(ca.publicKey));
        assert.ok(serving.subjectAltName?.includes(`IP Address:10.0.0.${i + 1}`));
      }
      assert.notEqual(pkis[0]?.servingCert, pkis[1]?.servingCert);
    } finally {
      await store.close();
    }
  });

  it('does not open with another key-encryption key: a clear error, and no second CA', async () => {
    const store = openStore({ backend: 'memory' });
    try {
      const first = await loadSharedPlatformCa({ store, kek, dir: join(root, 'kek', 'a', 'pki'), now });
      const otherKek = loadKeyEncryptionKey({ home: join(root, 'kek', 'b') });
      await assert.rejects(
        loadSharedPlatformCa({ store, kek: otherKek, dir: join(root, 'kek', 'b', 'pki'), now }),
        /^Error: the platform CA in the store cannot be opened with this server's key-encryption key: the private key in \/identity\/platform-ca was sealed under another key-encryption key .*give every server the same --identity-kek-file$/,
      );
      assert.equal((JSON.parse((await store.get(PLATFORM_CA_KEY))?.value ?? '{}') as PlatformCaRecord).certificate, first.ca.certificate, 'the store keeps its CA');
      assert.equal(existsSync(join(root, 'kek', 'b', 'pki', 'ca.crt')), false);
    } finally {
      await store.close();
    }
  });

  it('imports the CA a home made in pki/ before, if the store has none; a home whose CA differs from the store\'s does not start', async () => {
    const store = openStore({ backend: 'memory' });
    try {
      const legacyDir = join(root, 'legacy', 'pki');
      const legacy = await ensurePlatformPki({ dir: legacyDir, hosts: [] });
      assert.equal(legacy.outcome, 'created');
      const imported = await loadSharedPlatformCa({ store, kek, dir: legacyDir, now });
      assert.equal(imported.origin, 'imported');
      assert.equal(imported.ca.certificate, legacy.caCert);
      assert.equal((JSON.parse((await store.get(PLATFORM_CA_KEY))?.value ?? '{}') as PlatformCaRecord).origin, 'imported');
      // Its next start, and a new server over the store, use it.
      assert.equal((await loadSharedPlatformCa({ store, kek, dir: legacyDir, now })).origin, 'stored');
      const joined = await loadSharedPlatformCa({ store, kek, dir: join(root, 'legacy-join', 'pki'), now });
      assert.equal(joined.ca.certificate, legacy.caCert);
      const reused = await ensurePlatformPki({ dir: legacyDir, hosts: [], ca: imported.ca });
      assert.equal(reused.outcome, 'reused', 'the serving certificate it had is still signed by the CA');

      const otherDir = join(root, 'legacy-other', 'pki');
      await ensurePlatformPki({ dir: otherDir, hosts: [] });
      await assert.rejects(
        loadSharedPlatformCa({ store, kek, dir: otherDir, now }),
        new RegExp(`^Error: this home's platform CA \\(${otherDir}/ca\\.crt and ${otherDir}/ca\\.key\\) is not the platform CA of the store \\(/identity/platform-ca\\)`),
      );
    } finally {
      await store.close();
    }
  });

  it('of two homes with their own CAs starting together on an empty store, one is imported and the other refused', async () => {
    const store = openStore({ backend: 'memory' });
    try {
      const dirs = [join(root, 'two', 'a', 'pki'), join(root, 'two', 'b', 'pki')];
      const cas = await Promise.all(dirs.map((dir) => ensurePlatformPki({ dir, hosts: [] })));
      const results = await Promise.allSettled(dirs.map((dir) => loadSharedPlatformCa({ store, kek, dir, now })));
      const winners = results.filter((r) => r.status === 'fulfilled');
      assert.equal(winners.length, 1);
      const stored = (JSON.parse((await store.get(PLATFORM_CA_KEY))?.value ?? '{}') as PlatformCaRecord).certificate;
      assert.ok(cas.some((ca) => ca.caCert === stored));
      const refused = results.find((r) => r.status === 'rejected');
      assert.match(String(refused?.reason), /is not the platform CA of the store/);
    } finally {
      await store.close();
    }
  });
});
