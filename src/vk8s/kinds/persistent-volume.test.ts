import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { persistentVolumeStrategy as strategy } from './persistent-volume.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

function volume(spec: Record<string, unknown>): KubeObject {
  const object: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pv-1' }, spec };
  strategy.defaults(object);
  return object;
}
const valid = { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' } };

describe('PersistentVolume strategy', () => {
  it('pv defaults reclaim policy and volumeMode, starts Pending, and is cluster-scoped', () => {
    const object = volume(valid);
    assert.equal((object.spec as { persistentVolumeReclaimPolicy: string }).persistentVolumeReclaimPolicy, 'Retain');
    assert.equal((object.spec as { volumeMode: string }).volumeMode, 'Filesystem');
    strategy.prepareForCreate(object);
    assert.deepEqual(object.status, { phase: 'Pending' });
    assert.equal(strategy.resource.namespaced, false);
    assert.deepEqual(strategy.validate(object, context), []);
  });

  it('pv validation requires capacity of storage only, access modes and one source', () => {
    assert.deepEqual(lines(strategy.validate(volume({}), context)), [
      'spec.accessModes: Required value',
      'spec.capacity: Required value',
      'spec.capacity: Unsupported value: {}: supported values: "storage"',
      'spec: Required value: must specify a volume type',
    ]);
    assert.deepEqual(lines(strategy.validate(volume({ ...valid, capacity: { storage: '0', cpu: '1' } }), context)), [
      'spec.capacity: Unsupported value: {"storage":"0","cpu":"1"}: supported values: "storage"',
      'spec.capacity[storage]: Invalid value: "0": must be greater than zero',
    ]);
    assert.deepEqual(lines(strategy.validate(volume({ ...valid, nfs: { server: 'nfs.local', path: '/x' } }), context)), ['spec.nfs: Forbidden: may not specify more than 1 volume type']);
    assert.deepEqual(lines(strategy.validate(volume({ ...valid, persistentVolumeReclaimPolicy: 'Keep' }), context)), [
      'spec.persistentVolumeReclaimPolicy: Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"',
    ]);
  });

  it('pv validation reports a negative capacity as kube does', () => {
    assert.deepEqual(lines(strategy.validate(volume({ ...valid, capacity: { storage: '-1Ki' } }), context)), [
      'spec.capacity[storage]: Invalid value: -1024: must be a valid resource quantity',
      'spec.capacity[storage]: Invalid value: "-1Ki": must be greater than zero',
    ]);
  });

  it('pv validation checks the few per-source rules kept', () => {
    const base = { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'] };
    assert.deepEqual(lines(strategy.validate(volume({ ...base, nfs: { path: 'rel' } }), context)), [
      'spec.nfs.server: Required value',
      'spec.nfs.path: Invalid value: "rel": must be an absolute path',
    ]);
    assert.deepEqual(lines(strategy.validate(volume({ ...base, local: { path: '/mnt' } }), context)), ['spec.nodeAffinity: Required value: Local volume requires node affinity']);
    assert.deepEqual(lines(strategy.validate(volume({ ...base, hostPath: {} }), context)), ['spec.hostPath.path: Required value']);
  });

  it('pv update keeps the source and volumeMode immutable', () => {
    const old = volume(valid);
    assert.deepEqual(strategy.validateUpdate(volume({ ...valid, capacity: { storage: '10Gi' } }), old, context), []);
    assert.deepEqual(lines(strategy.validateUpdate(volume({ ...valid, hostPath: { path: '/other' }, volumeMode: 'Block' }), old, context)), [
      'spec.persistentvolumesource: Forbidden: is immutable after creation',
      'volumeMode: Invalid value: "Block": field is immutable',
    ]);
    assert.deepEqual(strategy.selectableFields(old), { name: 'pv-1' });
  });
});
