import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import { fakeClock } from '../common/clock.js';
import type { TenantCa } from './certificate-authorities.js';
import { certificateContents } from './certificate-contents.js';
import { verifyCsr } from './csr-verification.js';
import { IdentityError } from './identity-error.js';
import { issueLeafCertificates } from './leaf-certificates.js';
import { PresentedCertificateChecks } from './presented-certificate.js';
import { startIdentityFixture, type IdentityFixture } from './testing/identity-fixture.js';
import { makeTestCsr } from './testing/test-csr.js';

const START = new Date('2026-03-01T12:00:00Z');
const HOUR_MS = 3600 * 1000;
const ACME: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };

describe('PresentedCertificateChecks', () => {
  const clock = fakeClock(START);
  let fixture: IdentityFixture;
  let client: X509Certificate;
  let forged: X509Certificate;
  let lookups: string[] = [];
  const tenantCa = (tenant: string): Promise<TenantCa | undefined> => {
    lookups.push(tenant);
    return fixture.authorities.existingTenantCa(tenant);
  };
  /** Counts issuer checks (the first step of checking against the CA: checkIssued, then verify) of a certificate under test. */
  const counted = (certificate: X509Certificate): { certificate: X509Certificate; verifications: () => number } => {
    let calls = 0;
    const checkIssued = certificate.checkIssued.bind(certificate);
    Object.defineProperty(certificate, 'checkIssued', { value: (issuer: X509Certificate) => (calls++, checkIssued(issuer)) });
    return { certificate, verifications: () => calls };
  };
  const leaf = async (tenant: string): Promise<X509Certificate> => {
    const contents = certificateContents({ cluster: ACME, site: 're-a', pod: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', uid: 'uid-1', labels: { 'svc.io/siteName': 're-a' } }, spec: { nodeName: 're-a-n0' } }, services: [] });
    const bundle = await issueLeafCertificates(fixture.authorities, { tenant, contents, serverKey: await verifyCsr(makeTestCsr().pem, 's'), clientKey: await verifyCsr(makeTestCsr().pem, 'c'), now: START, lifetimeMs: HOUR_MS });
    return new X509Certificate(bundle.clientCertificate);
  };

  before(async () => {
    fixture = await startIdentityFixture(clock);
    await fixture.authorities.tenantCa('acme');
    await fixture.authorities.tenantCa('globex');
    client = await leaf('acme');
    forged = await leaf('globex');
  });
  after(async () => {
    await fixture?.close();
  });

  it('PresentedCertificateChecks verifies a certificate\'s signature once and remembers it with its CA', async () => {
    const checks = new PresentedCertificateChecks();
    const { certificate, verifications } = counted(new X509Certificate(client.raw));
    for (let i = 0; i < 3; i++) assert.equal((await checks.verify(certificate, tenantCa, START)).pod, 'web-1');
    assert.equal(verifications(), 1);
    // Another X509Certificate object of the same DER (the next request's) is remembered by fingerprint.
    const next = counted(new X509Certificate(client.raw));
    assert.equal((await checks.verify(next.certificate, tenantCa, START)).podUid, 'uid-1');
    assert.equal(next.verifications(), 0);
  });

  it('PresentedCertificateChecks still checks the validity window of a remembered certificate at every call', async () => {
    const checks = new PresentedCertificateChecks();
    await checks.verify(client, tenantCa, START);
    await assert.rejects(checks.verify(client, tenantCa, new Date(START.getTime() + HOUR_MS + 1000)), (e: unknown) => e instanceof IdentityError && e.code === 'Unauthenticated' && /it expired at 2026-03-01T13:00:00\.000Z/.test(e.message));
    await assert.rejects(checks.verify(client, tenantCa, new Date(START.getTime() - 10 * 60_000)), (e: unknown) => e instanceof IdentityError && /it is not valid before/.test(e.message));
    assert.equal((await checks.verify(client, tenantCa, START)).tenant, 'acme');
  });

  it('PresentedCertificateChecks checks again when the tenant\'s CA is another one, and never remembers a failure', async () => {
    const checks = new PresentedCertificateChecks();
    const { certificate, verifications } = counted(new X509Certificate(client.raw));
    await checks.verify(certificate, tenantCa, START);
    const acme = await fixture.authorities.existingTenantCa('acme');
    const otherCa = (tenant: string): Promise<TenantCa | undefined> => (tenant === 'acme' && acme !== undefined ? Promise.resolve({ ...acme }) : tenantCa(tenant));
    await checks.verify(certificate, otherCa, START);
    assert.equal(verifications(), 2);
    const bad = counted(new X509Certificate(forged.raw));
    for (let i = 0; i < 2; i++) await assert.rejects(checks.verify(bad.certificate, tenantCa, START), /it was not issued by tenant acme's identity CA/);
    assert.equal(bad.verifications(), 2);
    lookups = [];
    await assert.rejects(checks.verify(undefined, tenantCa, START), /present client\.crt and client\.key/);
    assert.deepEqual(lookups, []);
  });

  it('PresentedCertificateChecks remembers at most its limit of certificates', async () => {
    const checks = new PresentedCertificateChecks(1);
    const second = await leaf('acme');
    await checks.verify(client, tenantCa, START);
    await checks.verify(second, tenantCa, START);
    const first = counted(new X509Certificate(client.raw));
    await checks.verify(first.certificate, tenantCa, START);
    assert.equal(first.verifications(), 1, 'the first was dropped for the second');
  });
});
