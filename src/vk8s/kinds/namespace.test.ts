import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { namespaceStrategy as strategy } from './namespace.js';
import { serviceAccountStrategy } from './service-account.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);
const namespace = (fields: Record<string, unknown> = {}): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' }, ...fields });

describe('Namespace strategy', () => {
  it('namespace create sets phase Active and the kubernetes finalizer', () => {
    const object = namespace({ spec: { finalizers: ['example.com/x'] }, status: { phase: 'Terminating' } });
    strategy.defaults(object);
    strategy.prepareForCreate(object);
    assert.deepEqual(object.spec, { finalizers: ['example.com/x', 'kubernetes'] });
    assert.deepEqual(object.status, { phase: 'Active' });
    assert.deepEqual(strategy.validate(object, context), []);
    assert.equal(strategy.nameRule, 'dns1123Label');
    assert.equal(strategy.resource.namespaced, false);
    assert.equal(strategy.returnDeletedObject, true);
  });

  it('namespace validation checks spec.finalizers names', () => {
    assert.deepEqual(lines(strategy.validate(namespace({ spec: { finalizers: ['custom'] } }), context)), [
      'spec.finalizers: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified',
    ]);
  });

  it('namespace update keeps spec.finalizers and status; the status subresource checks the phase', () => {
    const old = namespace({ spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
    const next = namespace({ spec: { finalizers: [] }, status: { phase: 'Terminating' } });
    strategy.prepareForUpdate(next, old);
    assert.deepEqual(next.spec, { finalizers: ['kubernetes'] });
    assert.deepEqual(next.status, { phase: 'Active' });
    const status = strategy.status;
    assert.ok(status !== undefined);
    assert.deepEqual(lines(status.validateUpdate(namespace({ status: { phase: 'Terminating' } }), old, context)), [
      'status.Phase: Invalid value: "Terminating": may only be \'Active\' if `deletionTimestamp` is empty',
    ]);
    const deleting = namespace({ status: { phase: 'Terminating' } });
    deleting.metadata.deletionTimestamp = '2020-01-01T00:00:00Z';
    assert.deepEqual(status.validateUpdate(deleting, old, context), []);
  });

  it('namespace phase and legacy name are selectable', () => {
    assert.deepEqual(strategy.selectableFields(namespace({ status: { phase: 'Active' } })), { 'status.phase': 'Active', name: 'default' });
  });
});

describe('ServiceAccount strategy', () => {
  it('service account secrets keep only their names', () => {
    const object: KubeObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' }, secrets: [{ name: 'default-token-x', namespace: 'default', uid: 'u' }, { kind: 'Secret' }] };
    serviceAccountStrategy.prepareForCreate(object);
    assert.deepEqual(object.secrets, [{ name: 'default-token-x' }, {}]);
    const next: KubeObject = { ...object, secrets: [{ name: 'other', apiVersion: 'v1' }] };
    serviceAccountStrategy.prepareForUpdate(next, object);
    assert.deepEqual(next.secrets, [{ name: 'other' }]);
    assert.deepEqual(serviceAccountStrategy.validate(next, context), []);
  });
});
