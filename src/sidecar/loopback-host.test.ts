import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isLoopbackHost } from './loopback-host.js';

describe('isLoopbackHost', () => {
  it('accepts loopback names with and without a port, and no Host at all', () => {
    for (const host of [undefined, '127.0.0.1', '127.0.0.1:8070', '127.1.2.3:80', 'localhost', 'LOCALHOST:8070', '[::1]', '[::1]:8070']) {
      assert.equal(isLoopbackHost(host), true, String(host));
    }
  });

  it('refuses every other name, including ones that only start like loopback', () => {
    for (const host of ['', 'evil.example', 'evil.example:8070', '127.0.0.1.evil.example', 'localhost.evil.example', '10.0.0.1:8070', '[::2]:8070', '127.0.0.1:8070:1', '[::1', 'localhost:http']) {
      assert.equal(isLoopbackHost(host), false, host);
    }
  });
});
