import assert from 'node:assert/strict';
import { X509Certificate, createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { FakeSiteApi } from '../site-agent/testing/fake-site-api.js';
import { caPinOf, checkCaPin } from './ca-pin.js';
import { fetchPinnedCa } from './fetch-pinned-ca.js';
import { parseRegistrationToken } from '../site-agent/registration-token.js';

describe('CA pin', () => {
  let api: FakeSiteApi;
  before(async () => {
    api = await FakeSiteApi.start();
  });
  after(() => api.close());

  it('CA pin is the sha256 of the certificate DER', () => {
    const expected = createHash('sha256').update(new X509Certificate(api.ca).raw).digest('hex');
    assert.equal(caPinOf(api.ca), `sha256:${expected}`);
    assert.doesNotThrow(() => checkCaPin(api.ca, `sha256:${expected.toUpperCase()}`));
  });

  it('CA pin mismatch is refused with a clear error', () => {
    assert.throws(() => checkCaPin(api.ca, 'sha256:' + '0'.repeat(64)), /does not match the registration token.*refusing to trust it/);
    assert.throws(() => caPinOf('no certificate here'), /holds no PEM certificate/);
  });

  it('fetched CA is accepted only with the pin of the token', async () => {
    const token = parseRegistrationToken(api.token);
    assert.equal(await fetchPinnedCa(token.server, token.ca), api.ca);
    await assert.rejects(fetchPinnedCa(token.server, 'sha256:' + '1'.repeat(64)), /does not match the registration token/);
  });
});
