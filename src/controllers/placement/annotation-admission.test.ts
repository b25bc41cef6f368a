import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { validateSeedAnnotations } from './annotation-admission.js';

const object = (kind: string, annotations: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind, metadata: { name: 'x', annotations } });

describe('validateSeedAnnotations', () => {
  it('accepts well-formed placement references and the seed proxy values', () => {
    assert.deepEqual(validateSeedAnnotations(object('Deployment', { 'svc.io/sites': 'system/edge-1, system/edge-2', 'svc.io/virtual-sites': 'shared/all' })), []);
    assert.deepEqual(validateSeedAnnotations(object('Service', { 'svc.io/proxy-type': 'TCP_PROXY_WITH_SNI', 'svc.io/http2-enable': 'false' })), []);
  });

  it('refuses malformed placement values, naming the annotation and the expected form', () => {
    for (const value of ['garbage', '', 'system/', 'a/b/c', 'System/Edge', 'system/edge-1,,']) {
      const causes = validateSeedAnnotations(object('Deployment', { 'svc.io/sites': value }));
      assert.equal(causes.length, 1, value);
      assert.equal(causes[0]?.field, 'metadata.annotations[svc.io/sites]');
      assert.match(causes[0]?.message ?? '', /must be namespace\/name or a comma-separated list of them/);
    }
    assert.equal(validateSeedAnnotations(object('ConfigMap', { 'svc.io/virtual-sites': 'nope' }))[0]?.field, 'metadata.annotations[svc.io/virtual-sites]');
  });

  it('accepts svc.io/offline-eviction-seconds as whole seconds and refuses anything else', () => {
    assert.deepEqual(validateSeedAnnotations(object('Deployment', { 'svc.io/offline-eviction-seconds': '600' })), []);
    for (const value of ['', '-1', '1.5', '10m', '99999999']) {
      const causes = validateSeedAnnotations(object('StatefulSet', { 'svc.io/offline-eviction-seconds': value }));
      assert.equal(causes[0]?.field, 'metadata.annotations[svc.io/offline-eviction-seconds]', value);
      assert.match(causes[0]?.message ?? '', /must be a whole number of seconds from 0 to 31536000/);
    }
  });

  it("refuses a Service's proxy values outside the seed's sets", () => {
    assert.deepEqual(validateSeedAnnotations(object('Service', { 'svc.io/proxy-type': 'SOCKS', 'svc.io/http2-enable': 'maybe' })), [
      { reason: 'FieldValueNotSupported', field: 'metadata.annotations[svc.io/proxy-type]', message: 'Unsupported value: "SOCKS": supported values: "HTTP_PROXY", "TCP_PROXY", "TCP_PROXY_WITH_SNI"' },
      { reason: 'FieldValueNotSupported', field: 'metadata.annotations[svc.io/http2-enable]', message: 'Unsupported value: "maybe": supported values: "true", "false"' },
    ]);
  });

  it("refuses a Service's malformed svc.io/sni-names, naming the annotation, the bad name and the form", () => {
    assert.deepEqual(validateSeedAnnotations(object('Service', { 'svc.io/sni-names': 'api.example.com, www.example.com' })), []);
    for (const [value, detail] of [['a.example.com,,b', 'an empty name'], ['*.example.com', '"*.example.com" is not a DNS name'], ['API.example.com', '"API.example.com" is not a DNS name'], [Array.from({ length: 33 }, (_, i) => `n${i}`).join(','), '33 names']]) {
      const causes = validateSeedAnnotations(object('Service', { 'svc.io/sni-names': value as string }));
      assert.equal(causes.length, 1, value);
      assert.equal(causes[0]?.field, 'metadata.annotations[svc.io/sni-names]');
      assert.ok(causes[0]?.message.includes(`${detail as string}; must be a comma-separated list of at most 32 DNS names`), causes[0]?.message);
    }
  });

  it('does not check a value unchanged on update, so objects stored before stay updatable', () => {
    const old = object('Deployment', { 'svc.io/sites': 'garbage' });
    assert.deepEqual(validateSeedAnnotations(object('Deployment', { 'svc.io/sites': 'garbage', other: 'x' }), old), []);
    assert.equal(validateSeedAnnotations(object('Deployment', { 'svc.io/sites': 'garbage2' }), old).length, 1);
  });
});
