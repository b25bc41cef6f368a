import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { before, describe, it } from 'node:test';
import { acceptIdentityBundle } from './accept-identity-bundle.js';
import type { IdentityBundle } from './identity-bundle.js';
import { createIdentityRequest, type IdentityRequest } from './identity-request.js';
import { TestIdentityCa } from './testing/test-identity-ca.js';

describe('acceptIdentityBundle', () => {
  const now = Date.now();
  let request: IdentityRequest;
  let bundle: IdentityBundle;
  before(async () => {
    const ca = await TestIdentityCa.create(now);
    request = await createIdentityRequest();
    bundle = await ca.issue(request.csrs, { now, lifetimeMs: 3_600_000 });
  });

  it('an answer that fits the request becomes the identity: the kept keys, the leaves, the validity the leaves state', () => {
    const material = acceptIdentityBundle(request, bundle, now);
    assert.equal(material.serverKey, request.serverKey);
    assert.equal(material.clientKey, request.clientKey);
    assert.equal(new X509Certificate(material.serverCertificate).fingerprint256, new X509Certificate(bundle.serverCertificate).fingerprint256);
    assert.equal(new X509Certificate(material.clientCertificate).fingerprint256, new X509Certificate(bundle.clientCertificate).fingerprint256);
    const leaf = new X509Certificate(bundle.serverCertificate);
    assert.deepEqual(material.validity, { notBefore: Date.parse(leaf.validFrom), notAfter: Date.parse(leaf.validTo) });
    assert.equal(material.validity.notAfter, Math.floor((now + 3_600_000) / 1000) * 1000, 'whole seconds, as in the certificate');
  });

  it('an answer is refused when a leaf is not for the key pair sent, is not a certificate, or has expired', () => {
    const swapped = { ...bundle, serverCertificate: bundle.clientCertificate, clientCertificate: bundle.serverCertificate };
    assert.throws(() => acceptIdentityBundle(request, swapped, now), /^Error: the identity service's server certificate is not for the server key pair this sidecar sent$/);
    assert.throws(() => acceptIdentityBundle(request, { ...bundle, clientCertificate: 'nothing' }, now), /the identity service's clientCertificate is not a PEM certificate \(no CERTIFICATE block\)/);
    const notDer = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    assert.throws(() => acceptIdentityBundle(request, { ...bundle, serverCa: notDer }, now), /the identity service's serverCa is not a PEM certificate \(/);
    assert.throws(() => acceptIdentityBundle(request, { ...bundle, chain: '' }, now), /the identity service's chain holds no certificate/);
    assert.throws(() => acceptIdentityBundle(request, bundle, now + 2 * 3_600_000), /issued certificates that expired at .*is this clock right/);
  });
});
