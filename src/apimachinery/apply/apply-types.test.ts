import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ApplyTypes } from './apply-types.js';
import { loadKubernetesOpenApi } from '../../vk8s/openapi/kubernetes-document.js';
import { resolveType, type TypeNode } from './type-schema.js';

const k8s = new ApplyTypes(loadKubernetesOpenApi().definitions);

/** The type at a dotted path below a definition (list items are entered automatically). */
function typeAt(definition: string, path: string): TypeNode {
  let t = resolveType({ kind: 'ref', name: definition }, k8s.resolve);
  for (const name of path.split('.')) {
    if (t.kind === 'list') t = resolveType(t.items, k8s.resolve);
    assert.equal(t.kind, 'struct', `${name} is looked up in a struct`);
    const field = t.kind === 'struct' ? t.fields.get(name) : undefined;
    assert.ok(field !== undefined, `${path}: no field ${name}`);
    t = resolveType(field, k8s.resolve);
  }
  return t;
}

const listShape = (t: TypeNode): string => (t.kind === 'list' ? (t.associative ? (t.keys.length > 0 ? `map(${t.keys.join('+')})` : 'set') : 'atomic') : t.kind);

describe('apply types from the 1.17 OpenAPI', () => {
  it('key lists by x-kubernetes-list-map-keys, else by the patch merge key', () => {
    assert.equal(listShape(typeAt('io.k8s.api.apps.v1.Deployment', 'spec.template.spec.containers')), 'map(name)');
    assert.equal(listShape(typeAt('io.k8s.api.apps.v1.Deployment', 'spec.template.spec.containers.ports')), 'map(containerPort+protocol)');
    assert.equal(listShape(typeAt('io.k8s.api.core.v1.Service', 'spec.ports')), 'map(port+protocol)');
    assert.equal(listShape(typeAt('io.k8s.api.core.v1.Pod', 'spec.volumes')), 'map(name)', 'merge,retainKeys still merges');
    assert.equal(listShape(typeAt('io.k8s.api.apps.v1.Deployment', 'status.conditions')), 'map(type)');
  });

  it('make merging lists of scalars sets, and every other list atomic', () => {
    assert.equal(listShape(typeAt('io.k8s.api.core.v1.ConfigMap', 'metadata.finalizers')), 'set');
    assert.equal(listShape(typeAt('io.k8s.api.core.v1.Pod', 'spec.containers.args')), 'atomic');
    assert.equal(listShape(typeAt('io.k8s.api.core.v1.Pod', 'spec.tolerations')), 'atomic');
  });

  it('read labels and quantities as granular maps of scalars, times and int-or-string as scalars', () => {
    const labels = typeAt('io.k8s.api.core.v1.Pod', 'metadata.labels');
    assert.equal(labels.kind === 'map' && !labels.atomic && resolveType(labels.values, k8s.resolve).kind, 'scalar');
    assert.equal(typeAt('io.k8s.api.core.v1.Pod', 'spec.containers.resources.limits').kind, 'map');
    assert.deepEqual(typeAt('io.k8s.api.core.v1.Pod', 'metadata.creationTimestamp'), { kind: 'scalar', scalar: 'string' });
    assert.deepEqual(typeAt('io.k8s.api.core.v1.Service', 'spec.ports.targetPort'), { kind: 'scalar', scalar: 'untyped' });
  });

  it('finds definitions by group, version and kind, and deduces unknown ones', () => {
    assert.equal(k8s.definitionFor('apps/v1', 'Deployment'), 'io.k8s.api.apps.v1.Deployment');
    assert.equal(k8s.definitionFor('v1', 'ConfigMap'), 'io.k8s.api.core.v1.ConfigMap');
    assert.equal(k8s.definitionFor('batch/v1beta1', 'CronJob'), 'io.k8s.api.batch.v1beta1.CronJob');
    assert.equal(k8s.definitionFor('example.com/v1', 'Widget'), undefined);
    assert.deepEqual(k8s.resolve('no.such.Definition'), { kind: 'deduced' });
  });
});
