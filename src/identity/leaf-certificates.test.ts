import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fakeClock } from '../common/clock.js';
import { tenantCaSubject } from './ca-certificates.js';
import { certificateContents } from './certificate-contents.js';
import { certificateParts } from '../common/der/certificate-parts.js';
import { readTop } from '../common/der/der-reader.js';
import { oid } from '../common/der/der-writer.js';
import { verifyCsr } from './csr-verification.js';
import type { IdentityBundle } from '../site-api/identity-bundle.js';
import { WORKLOAD_IDENTITY_OID } from './identity-extension.js';
import type { IdentityKeyAlgorithm } from './identity-key-algorithm.js';
import { issueLeafCertificates } from './leaf-certificates.js';
import { startIdentityFixture, type IdentityFixture } from './testing/identity-fixture.js';
import { opensslText, opensslVerify } from './testing/openssl.js';
import { makeTestCsr, type TestKeyType } from './testing/test-csr.js';
import { x509 } from '../common/x509.js';

const NOW = new Date('2026-03-01T12:00:00.750Z');
const DAY_MS = 24 * 3600 * 1000;
const pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', uid: '6f1c-uid', labels: { app: 'web', 'svc.io/siteName': 're-a' } },
  spec: { nodeName: 're-a-n0', serviceAccountName: 'shop' },
};

async function issue(fixture: IdentityFixture, tenant: string, options: { serverKey?: TestKeyType; lifetimeMs?: number } = {}): Promise<IdentityBundle> {
  const contents = certificateContents({ cluster: { tenant, namespace: 'default', name: 'vk1' }, site: 're-a', pod, services: [{ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' } } }] });
  const serverKey = await verifyCsr(makeTestCsr(options.serverKey).pem, 'serverCsr');
  const clientKey = await verifyCsr(makeTestCsr().pem, 'clientCsr');
  return issueLeafCertificates(fixture.authorities, { tenant, contents, serverKey, clientKey, now: NOW, lifetimeMs: options.lifetimeMs ?? DAY_MS });
}

const squash = (text: string): string => text.replace(/\n\s*/g, '');

describe('workload certificates (ECDSA P-256 CAs)', () => {
  let fixture: IdentityFixture;
  let bundle: IdentityBundle;
  before(async () => {
    fixture = await startIdentityFixture(fakeClock(NOW));
    bundle = await issue(fixture, 'acme');
  });
  after(async () => {
    await fixture?.close();
  });

  it('carry the pod\'s subject, SANs and workload identity, parsed with @peculiar/x509', () => {
    for (const pem of [bundle.serverCertificate, bundle.clientCertificate]) {
      const cert = new x509.X509Certificate(pem);
      assert.equal(cert.subject, 'L=re-a, O=acme, OU=default, CN=web-1');
      assert.equal(cert.issuer, 'O=Edgeplane, OU=acme, CN=acme workload identity CA');
      const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
      assert.deepEqual(
        san?.names.items.map((n) => `${n.type}:${n.value}`),
        ['dns:web', 'dns:web-1.default', 'dns:web-1.default.re-a', 'dns:web.default', 'dns:web.default.svc', 'dns:web.default.svc.cluster.local', 'url:spiffe://acme/ns/default/sa/shop'],
      );
      // asn1js (under @peculiar/x509) cannot print arcs this large and names the OID "2.25";
      // openssl prints it whole (the -text test), and the DER holds it whole.
      assert.ok(Buffer.from(cert.rawData).includes(oid(WORKLOAD_IDENTITY_OID)));
      const identity = cert.extensions.find((e) => e.type.startsWith('2.25'));
      assert.ok(identity !== undefined);
      assert.equal(identity.critical, false);
      const value = readTop(Buffer.from(identity.value), 0x0c, 'a DER UTF8String');
      assert.equal(
        value.content.toString('utf8'),
        '{"labels":{"app":"web","svc.io/siteName":"re-a"},"namespace":"default","pod":"web-1","podUid":"6f1c-uid","serviceAccount":"shop","site":"re-a","tenant":"acme","v":1,"vk8s":"vk1"}',
      );
      assert.equal(cert.getExtension(x509.BasicConstraintsExtension)?.ca, false);
      const ca = new x509.X509Certificate(bundle.clientCa);
      assert.equal(cert.getExtension(x509.AuthorityKeyIdentifierExtension)?.keyId, ca.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
      assert.ok(cert.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId !== undefined);
      assert.equal((cert.signatureAlgorithm as { name?: string }).name, 'ECDSA');
    }
  });

  it('are a server certificate (digitalSignature, serverAuth) and a client certificate (clientAuth)', () => {
    const server = new x509.X509Certificate(bundle.serverCertificate);
    const client = new x509.X509Certificate(bundle.clientCertificate);
    assert.equal(server.getExtension(x509.KeyUsagesExtension)?.usages, x509.KeyUsageFlags.digitalSignature);
    assert.deepEqual([...(server.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], [x509.ExtendedKeyUsage.serverAuth]);
    assert.equal(client.getExtension(x509.KeyUsagesExtension)?.usages, x509.KeyUsageFlags.digitalSignature);
    assert.deepEqual([...(client.getExtension(x509.ExtendedKeyUsageExtension)?.usages ?? [])], [x509.ExtendedKeyUsage.clientAuth]);
    assert.notEqual(server.serialNumber, client.serialNumber);
  });

  it('are valid from 5 minutes before now for the lifetime, in whole seconds, as the bundle says', () => {
    assert.equal(bundle.notBefore, '2026-03-01T11:55:00Z');
    assert.equal(bundle.notAfter, '2026-03-02T12:00:00Z');
    for (const pem of [bundle.serverCertificate, bundle.clientCertificate]) {
      const cert = new x509.X509Certificate(pem);
      assert.equal(cert.notBefore.toISOString(), '2026-03-01T11:55:00.000Z');
      assert.equal(cert.notAfter.toISOString(), '2026-03-02T12:00:00.000Z');
    }
  });

  it('never outlive the tenant CA', async () => {
    const long = await issue(fixture, 'acme', { lifetimeMs: 20 * 365 * DAY_MS });
    assert.equal(long.notAfter, new x509.X509Certificate(long.chain).notAfter.toISOString().replace('.000Z', 'Z'));
  });

  it('show the documented identity in openssl x509 -text', async () => {
    const text = await opensslText(bundle.clientCertificate);
    assert.match(text, /Subject: L = re-a, O = acme, OU = default, CN = web-1/);
    assert.match(text, /X509v3 Extended Key Usage: \n\s+TLS Web Client Authentication/);
    assert.match(text, /URI:spiffe:\/\/acme\/ns\/default\/sa\/shop/);
    assert.match(text, new RegExp(`${WORKLOAD_IDENTITY_OID.replace(/\./g, '\\.')}: \\n`));
    assert.ok(squash(text).includes('"podUid":"6f1c-uid","serviceAccount":"shop","site":"re-a","tenant":"acme","v":1,"vk8s":"vk1"}'), text);
  });

  it('verify with openssl against the tenant bundle alone, and against the root through the intermediate', async () => {
    for (const [pem, purpose] of [
      [bundle.serverCertificate, 'sslserver'],
      [bundle.clientCertificate, 'sslclient'],
    ] as const) {
      const anchored = await opensslVerify(bundle.clientCa, pem + bundle.chain, { purpose, at: NOW });
      assert.equal(anchored.status, 0, anchored.output);
      assert.match(anchored.output, /: OK\n$/);
      const rooted = await opensslVerify(fixture.authorities.rootPem, pem, { untrusted: bundle.chain, purpose, at: NOW });
      assert.equal(rooted.status, 0, rooted.output);
    }
    const wrongPurpose = await opensslVerify(bundle.clientCa, bundle.clientCertificate, { purpose: 'sslserver', at: NOW });
    assert.notEqual(wrongPurpose.status, 0, 'a client certificate is no server certificate');
  });

  it('of tenant B do not verify against tenant A\'s bundle, even with B\'s intermediate offered', async () => {
    const other = await issue(fixture, 'globex');
    assert.notEqual(other.clientCa, bundle.clientCa);
    const crossed = await opensslVerify(bundle.clientCa, other.clientCertificate, { untrusted: other.chain, at: NOW });
    assert.notEqual(crossed.status, 0, crossed.output);
    assert.match(crossed.output, /unable to get (local )?issuer certificate/);
    const own = await opensslVerify(other.clientCa, other.clientCertificate, { at: NOW });
    assert.equal(own.status, 0, own.output);
  });

  it('have a tenant CA whose intermediate and trust anchor share subject, key and key identifier', () => {
    const intermediate = new x509.X509Certificate(bundle.chain);
    const anchor = new x509.X509Certificate(bundle.serverCa);
    assert.equal(bundle.serverCa, bundle.clientCa);
    assert.equal(intermediate.subject, anchor.subject);
    assert.deepEqual(certificateParts(Buffer.from(intermediate.rawData)).subject, tenantCaSubject('acme'));
    assert.deepEqual(certificateParts(Buffer.from(anchor.rawData)).subject, tenantCaSubject('acme'));
    assert.deepEqual(Buffer.from(intermediate.publicKey.rawData), Buffer.from(anchor.publicKey.rawData));
    assert.equal(intermediate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId, anchor.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId);
    assert.equal(anchor.issuer, anchor.subject, 'the anchor is self-signed');
    assert.equal(intermediate.issuer, 'O=Edgeplane, CN=Edgeplane workload identity root CA');
    assert.equal(intermediate.getExtension(x509.BasicConstraintsExtension)?.pathLength, 0);
  });

  it('give an RSA server key keyEncipherment as well', async () => {
    const rsa = await issue(fixture, 'acme', { serverKey: { type: 'rsa', bits: 2048 } });
    const server = new x509.X509Certificate(rsa.serverCertificate);
    assert.equal(server.getExtension(x509.KeyUsagesExtension)?.usages, x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    assert.equal((await opensslVerify(rsa.serverCa, rsa.serverCertificate, { purpose: 'sslserver', at: NOW })).status, 0);
  });
});

describe('workload certificates (RSA-2048 CAs)', () => {
  it('are signed with sha256WithRSAEncryption by RSA CAs and verify with openssl', async () => {
    const algorithm: IdentityKeyAlgorithm = 'RSA_2048';
    const fixture = await startIdentityFixture(fakeClock(NOW), algorithm);
    try {
      const bundle = await issue(fixture, 'acme');
      const text = await opensslText(bundle.serverCertificate);
      assert.match(text, /Signature Algorithm: sha256WithRSAEncryption/);
      assert.match(await opensslText(bundle.chain), /Public-Key: \(2048 bit\)/);
      assert.match(await opensslText(fixture.authorities.rootPem), /Public-Key: \(2048 bit\)/);
      const verified = await opensslVerify(bundle.clientCa, bundle.clientCertificate, { purpose: 'sslclient', at: NOW });
      assert.equal(verified.status, 0, verified.output);
      const rooted = await opensslVerify(fixture.authorities.rootPem, bundle.serverCertificate, { untrusted: bundle.chain, purpose: 'sslserver', at: NOW });
      assert.equal(rooted.status, 0, rooted.output);
    } finally {
      await fixture.close();
    }
  });
});
