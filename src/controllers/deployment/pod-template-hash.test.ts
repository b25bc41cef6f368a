import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import { canonicalJson, fnv1a32, podTemplateHash } from './pod-template-hash.js';

const template = (image: string, labels: Record<string, string> = { app: 'web' }): PodTemplateSpec => ({ metadata: { labels }, spec: { containers: [{ name: 'web', image }] } });

describe('pod template hash', () => {
  it('pod template hash is ten safe characters, stable, and differs by template, site and collision count', () => {
    const a = podTemplateHash(template('nginx:1'), 'site-a');
    assert.match(a, /^[bcdfghjklmnpqrstvwxz2456789]{10}$/);
    assert.equal(podTemplateHash(template('nginx:1'), 'site-a'), a);
    const others = [podTemplateHash(template('nginx:2'), 'site-a'), podTemplateHash(template('nginx:1'), 'site-b'), podTemplateHash(template('nginx:1'), 'site-a', 1)];
    for (const other of others) assert.notEqual(other, a);
    assert.equal(new Set(others).size, 3);
  });

  it('pod template hash ignores its own label, key order and empty fields', () => {
    const base = podTemplateHash(template('nginx:1'), 'site-a');
    assert.equal(podTemplateHash(template('nginx:1', { app: 'web', 'pod-template-hash': 'xyz' }), 'site-a'), base);
    const reordered: PodTemplateSpec = { spec: { containers: [{ image: 'nginx:1', name: 'web', env: [] }], volumes: null }, metadata: { annotations: {}, labels: { app: 'web' } } };
    assert.equal(podTemplateHash(reordered, 'site-a'), base);
  });

  it('fnv1a32 matches the reference vectors', () => {
    assert.equal(fnv1a32(''), 0x811c9dc5);
    assert.equal(fnv1a32('a'), 0xe40c292c);
    assert.equal(fnv1a32('foobar'), 0xbf9cf968);
    assert.equal(canonicalJson({ b: 1, a: [], c: { d: null } }), '{"b":1}');
  });
});
