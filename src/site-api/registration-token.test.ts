import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ensurePlatformPki } from '../identity/platform-ca.js';
import { caPin, formatRegistrationToken, InvalidTokenError, newTokenCredentials, parseRegistrationToken, secretDigest } from './registration-token.js';

const PAYLOAD = { id: '0123456789abcdef', secret: 'A'.repeat(43), ca: `sha256:${'ab'.repeat(32)}`, server: 'https://cp.example.com:8443' };

describe('registration token', () => {
  it('registration token round-trips through ept1.<base64url JSON>', () => {
    const token = formatRegistrationToken(PAYLOAD);
    assert.match(token, /^ept1\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(JSON.parse(Buffer.from(token.slice(5), 'base64url').toString('utf8')), PAYLOAD);
    assert.deepEqual(parseRegistrationToken(token), PAYLOAD);
  });

  it('registration token parsing refuses what is malformed, naming the part', () => {
    const encode = (value: unknown): string => 'ept1.' + Buffer.from(JSON.stringify(value)).toString('base64url');
    const cases: Array<[string, RegExp]> = [
      ['ep1.abc', /starts with "ept1."/],
      ['ept1.%%%', /not base64url JSON/],
      [encode({ ...PAYLOAD, id: 'XYZ' }), /no valid id/],
      [encode({ ...PAYLOAD, secret: 'short' }), /no valid secret/],
      [encode({ ...PAYLOAD, ca: 'md5:00' }), /CA pin/],
      [encode({ ...PAYLOAD, server: 'http://plain' }), /https server URL/],
    ];
    for (const [token, message] of cases) assert.throws(() => parseRegistrationToken(token), (e: unknown) => e instanceof InvalidTokenError && message.test(e.message), token);
  });

  it('registration token credentials are fresh and stored only as a digest', () => {
    const bytes = (n: number): Buffer => Buffer.alloc(n, 7);
    const { id, secret } = newTokenCredentials(bytes);
    assert.equal(id, '0707070707070707');
    assert.equal(secret, Buffer.alloc(32, 7).toString('base64url'));
    assert.equal(secretDigest(secret), createHash('sha256').update(secret).digest('hex'));
    assert.notEqual(newTokenCredentials().id, newTokenCredentials().id);
  });

  it('CA pin is the sha256 of the certificate DER', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'edgeplane-pin-'));
    try {
      const pki = await ensurePlatformPki({ dir, hosts: [] });
      const pem = readFileSync(pki.caCertPath, 'utf8');
      assert.equal(caPin(pem), `sha256:${createHash('sha256').update(new X509Certificate(pem).raw).digest('hex')}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
