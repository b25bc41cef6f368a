import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RouteTable } from './route-table.js';

describe('RouteTable', () => {
  const table = new RouteTable<string>();
  table.add('GET', '/status', 'status');
  table.add('POST', '/secret/unseal', 'unseal');
  table.add('GET', '/creds/pki/:role/:form', 'creds');
  table.add('GET', '/trust/pki/:bundle', 'trust');

  it('finds exact paths and patterns by method, with their parameters', () => {
    assert.deepEqual(table.find('GET', '/status'), { value: 'status', params: {} });
    assert.deepEqual(table.find('POST', '/secret/unseal'), { value: 'unseal', params: {} });
    assert.deepEqual(table.find('GET', '/creds/pki/server/cert-only'), { value: 'creds', params: { role: 'server', form: 'cert-only' } });
    assert.deepEqual(table.find('GET', '/trust/pki/client_ca'), { value: 'trust', params: { bundle: 'client_ca' } });
    assert.deepEqual(table.find('GET', '/trust/pki/a%20b'), { value: 'trust', params: { bundle: 'a b' } }, 'parameters are percent-decoded');
  });

  it('matches nothing else: other methods, missing, empty or extra segments, trailing slashes, malformed escapes', () => {
    for (const [method, path] of [
      ['POST', '/status'],
      ['GET', '/secret/unseal'],
      ['GET', '/status/'],
      ['GET', '/'],
      ['GET', ''],
      ['GET', '/creds/pki/server'],
      ['GET', '/creds/pki/server/key/extra'],
      ['GET', '/creds/pki//key'],
      ['GET', '/trust/pki/'],
      ['GET', '/trust/pki/%E0%A4%A'],
      ['GET', '/Trust/pki/server_ca'],
    ] as const) {
      assert.equal(table.find(method, path), null, `${method} ${path}`);
    }
  });

  it('refuses a pattern that is not a path', () => {
    assert.throws(() => table.add('GET', 'status', 'x'), /a route pattern starts with "\/": status/);
  });
});
