import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { authenticateRequest } from './authenticate.js';
import type { CredentialService } from './credentials.js';
import type { Principal } from './principal.js';

const principal: Principal = { tenant: 'acme', user: 'kube@acme', credential: 'kube', roles: {} };

/** A TLS socket whose peer certificate TLS verified, counting getPeerCertificate calls. */
function verifiedSocket(protocol: string): { socket: object; reads: () => number } {
  let reads = 0;
  const socket = {
    authorized: true,
    getProtocol: () => protocol,
    getPeerCertificate: () => {
      reads++;
      return { serialNumber: '0A1B' };
    },
  };
  return { socket, reads: () => reads };
}

describe('authenticateRequest', () => {
  it('client certificate of a TLS 1.3 connection is read once per connection, of TLS 1.2 on every request', async () => {
    const serials: string[] = [];
    const credentials = {
      authenticateCertificate: (serial: string) => {
        serials.push(serial);
        return Promise.resolve(principal);
      },
    } as unknown as CredentialService;
    const tls13 = verifiedSocket('TLSv1.3');
    for (let i = 0; i < 3; i++) assert.equal(await authenticateRequest(credentials, {}, tls13.socket), principal);
    assert.equal(tls13.reads(), 1);
    const tls12 = verifiedSocket('TLSv1.2');
    for (let i = 0; i < 3; i++) await authenticateRequest(credentials, {}, tls12.socket);
    assert.equal(tls12.reads(), 3, 'TLS 1.2 may renegotiate another certificate');
    assert.deepEqual(serials, Array(6).fill('0A1B'));
  });
});
