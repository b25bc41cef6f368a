import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { toolPath } from '../testing/tools.js';
import { ensurePlatformPki } from './platform-ca.js';
import { x509 } from '../common/x509.js';

function openssl(args: string[]): string {
  return execFileSync(toolPath('openssl'), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('platform CA', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-pki-'));
  after(() => rmSync(root, { recursive: true, force: true }));

  it('is generated on first start with private keys readable only by the owner, and openssl verifies the serving certificate', async () => {
    const dir = join(root, 'first');
    const pki = await ensurePlatformPki({ dir, hosts: ['127.0.0.1', 'edge.example'] });
    assert.equal(pki.outcome, 'created');
    assert.equal(statSync(join(dir, 'ca.key')).mode & 0o777, 0o600);
    assert.equal(statSync(pki.servingKeyPath).mode & 0o777, 0o600);
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    assert.match(openssl(['verify', '-CAfile', pki.caCertPath, pki.servingCertPath]), /: OK/);
    const text = openssl(['x509', '-in', pki.servingCertPath, '-noout', '-text']);
    assert.match(text, /DNS:edge\.example/);
    assert.match(text, /IP Address:127\.0\.0\.1/);
    assert.match(text, /TLS Web Server Authentication/);
    const ca = openssl(['x509', '-in', pki.caCertPath, '-noout', '-text']);
    assert.match(ca, /CA:TRUE/);
    assert.match(ca, /ASN1 OID: prime256v1/);
  });

  it('is reused on later starts; a new host or a near expiry reissues only the serving certificate', async () => {
    const dir = join(root, 'reuse');
    const t0 = new Date('2026-01-01T00:00:00Z');
    const first = await ensurePlatformPki({ dir, hosts: ['127.0.0.1'], now: () => t0 });
    const again = await ensurePlatformPki({ dir, hosts: ['127.0.0.1'], now: () => t0 });
    assert.equal(again.outcome, 'reused');
    assert.equal(again.caCert, first.caCert);
    assert.equal(again.servingCert, first.servingCert);

    const moved = await ensurePlatformPki({ dir, hosts: ['10.1.2.3'], now: () => t0 });
    assert.equal(moved.outcome, 'reissued');
    assert.equal(moved.caCert, first.caCert);
    assert.notEqual(moved.servingCert, first.servingCert);

    const late = new Date(t0.getTime() + 340 * 24 * 3600 * 1000);
    const renewed = await ensurePlatformPki({ dir, hosts: ['10.1.2.3'], now: () => late });
    assert.equal(renewed.outcome, 'reissued');
    const leaf = new x509.X509Certificate(readFileSync(renewed.servingCertPath, 'utf8'));
    assert.ok(leaf.notAfter.getTime() > late.getTime() + 300 * 24 * 3600 * 1000);
  });
});
