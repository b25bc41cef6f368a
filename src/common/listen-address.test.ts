import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseListenAddress, urlFor } from './listen-address.js';

describe('listen address', () => {
  it('parses host:port, [ipv6]:port and :port', () => {
    assert.deepEqual(parseListenAddress('127.0.0.1:6443'), { host: '127.0.0.1', port: 6443 });
    assert.deepEqual(parseListenAddress('[::1]:0'), { host: '::1', port: 0 });
    assert.deepEqual(parseListenAddress(':8443'), { host: '0.0.0.0', port: 8443 });
    assert.deepEqual(parseListenAddress('localhost:443'), { host: 'localhost', port: 443 });
  });

  it('rejects malformed addresses with a message naming the problem', () => {
    assert.throws(() => parseListenAddress('6443'), /is not host:port/);
    assert.throws(() => parseListenAddress('host:70000'), /port 70000 is above 65535/);
    assert.throws(() => parseListenAddress('[nope]:1'), /is not an IPv6 address/);
    assert.throws(() => parseListenAddress('::1:6443'), /is not host:port/);
  });

  it('urlFor brackets IPv6 hosts', () => {
    assert.equal(urlFor({ host: '::1', port: 6443 }), 'https://[::1]:6443');
    assert.equal(urlFor({ host: '127.0.0.1', port: 1 }), 'https://127.0.0.1:1');
  });
});
