import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/object.js';
import { http2EnabledOf, parseSniNames, proxyTypeOf, sniNamesOf } from './service-annotations.js';

const service = (annotations: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', annotations } });

describe('service annotations', () => {
  it('defaults to TCP_PROXY and HTTP/1.1 upstream, and reads the seed values', () => {
    assert.equal(proxyTypeOf(service({})), 'TCP_PROXY');
    assert.equal(proxyTypeOf(service({ 'svc.io/proxy-type': 'HTTP_PROXY' })), 'HTTP_PROXY');
    assert.equal(proxyTypeOf(service({ 'svc.io/proxy-type': 'bogus' })), 'TCP_PROXY');
    assert.equal(http2EnabledOf(service({})), false);
    assert.equal(http2EnabledOf(service({ 'svc.io/http2-enable': 'true' })), true);
    assert.equal(http2EnabledOf(service({ 'svc.io/http2-enable': 'false' })), false);
  });

  it('parses svc.io/sni-names: trimmed, deduplicated DNS names; refuses wildcards, capitals, empty parts and long labels', () => {
    assert.deepEqual(parseSniNames(' a.example.com ,b,a.example.com'), { names: ['a.example.com', 'b'] });
    assert.deepEqual(sniNamesOf(service({ 'svc.io/sni-names': 'x.y' })), ['x.y']);
    assert.deepEqual(sniNamesOf(service({ 'svc.io/sni-names': '*.y' })), []);
    for (const bad of ['', 'a,', '*.example.com', 'A.example.com', 'a..b', '-a.b', `${'x'.repeat(64)}.com`, 'a_b.com']) assert.ok('problem' in parseSniNames(bad), bad);
  });
});
