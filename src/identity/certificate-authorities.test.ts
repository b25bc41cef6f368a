import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import { fakeClock } from '../common/clock.js';
import { CertificateAuthorities } from './certificate-authorities.js';
import { IdentityError } from './identity-error.js';
import { ROOT_CA_KEY, tenantCaKey } from './identity-records.js';
import { loadKeyEncryptionKey } from './key-encryption-key.js';
import { startIdentityFixture, type IdentityFixture } from './testing/identity-fixture.js';
import { x509 } from '../common/x509.js';

const clock = fakeClock(new Date('2026-03-01T12:00:00Z'));
const logger = createLogger({ level: 'silent' });

describe('CertificateAuthorities', () => {
  let fixture: IdentityFixture;
  before(async () => {
    fixture = await startIdentityFixture(clock);
  });
  after(async () => {
    await fixture?.close();
  });

  it('keeps the root in the store with its key sealed, and every later start uses the same root', async () => {
    const kv = await fixture.store.get(ROOT_CA_KEY);
    assert.ok(kv !== undefined);
    const record = JSON.parse(kv.value) as Record<string, unknown>;
    assert.deepEqual(Object.keys(record).sort(), ['algorithm', 'certificate', 'created', 'key']);
    assert.doesNotMatch(kv.value, /PRIVATE KEY/);
    const again = await CertificateAuthorities.open({ store: fixture.store, kek: fixture.kek, algorithm: 'RSA_2048', clock, logger });
    assert.equal(again.rootPem, fixture.authorities.rootPem, 'an existing root is kept whatever the algorithm asked for');
    const root = new x509.X509Certificate(again.rootPem);
    assert.equal(root.subject, 'O=Edgeplane, CN=Edgeplane workload identity root CA');
    assert.equal(root.notAfter.getTime() - root.notBefore.getTime(), 3650 * 24 * 3600 * 1000 + 5 * 60 * 1000);
    assert.equal(root.getExtension(x509.BasicConstraintsExtension)?.pathLength, 1);
  });

  it('makes a tenant CA once, even when servers over one store ask for it at the same time', async () => {
    const other = await CertificateAuthorities.open({ store: fixture.store, kek: fixture.kek, algorithm: 'ECDSA_P256', clock, logger });
    const cas = await Promise.all([fixture.authorities, other, fixture.authorities, other].map((a) => a.tenantCa('initech')));
    assert.equal(new Set(cas.map((ca) => ca.anchorPem)).size, 1);
    assert.equal(new Set(cas.map((ca) => ca.intermediatePem)).size, 1);
    const listed = await fixture.store.list('/identity/tenant-cas/');
    assert.deepEqual(listed.items.map((kv) => kv.key), [tenantCaKey('initech')]);
    const intermediate = new x509.X509Certificate(cas[0]?.intermediatePem ?? '');
    assert.equal(intermediate.notAfter.getTime() - intermediate.notBefore.getTime(), 5 * 365 * 24 * 3600 * 1000 + 5 * 60 * 1000);
  });

  it('never makes a CA for a tenant a presented certificate names', async () => {
    assert.equal(await fixture.authorities.existingTenantCa('nobody'), undefined);
    assert.equal(await fixture.store.get(tenantCaKey('nobody')), undefined);
    await fixture.authorities.tenantCa('hooli');
    const other = await CertificateAuthorities.open({ store: fixture.store, kek: fixture.kek, algorithm: 'ECDSA_P256', clock, logger });
    assert.equal((await other.existingTenantCa('hooli'))?.anchorPem, (await fixture.authorities.tenantCa('hooli')).anchorPem, 'another server finds it in the store');
  });

  it('refuses to start with another key-encryption key than the one that sealed the keys', async () => {
    const otherKek = loadKeyEncryptionKey({ home: join(fixture.home, 'elsewhere') });
    await assert.rejects(
      CertificateAuthorities.open({ store: fixture.store, kek: otherKek, algorithm: 'ECDSA_P256', clock, logger }),
      (error: unknown) => error instanceof IdentityError && error.code === 'Internal' && /\/identity\/root-ca was sealed under another key-encryption key/.test(error.message),
    );
  });
});
