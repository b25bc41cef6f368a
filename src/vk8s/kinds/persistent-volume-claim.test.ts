import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StatusCause } from '../../apimachinery/errors/status-error.js';
import type { StrategyContext } from '../../registry/strategy.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { persistentVolumeClaimStrategy as strategy } from './persistent-volume-claim.js';

const context: StrategyContext = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk' }, now: '2020-01-01T00:00:00Z' };
const lines = (causes: readonly StatusCause[]): string[] => causes.map((c) => `${c.field}: ${c.message}`);

function claim(spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject {
  const object: KubeObject = { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'data', namespace: 'default' }, spec, ...extra };
  strategy.defaults(object);
  return object;
}
const valid = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

describe('PersistentVolumeClaim strategy', () => {
  it('pvc defaults volumeMode and starts Pending', () => {
    const object = claim(valid, { status: { phase: 'Bound' } });
    assert.equal((object.spec as { volumeMode: string }).volumeMode, 'Filesystem');
    strategy.prepareForCreate(object);
    assert.deepEqual(object.status, { phase: 'Pending' });
    assert.deepEqual(strategy.validate(object, context), []);
  });

  it('pvc validation requires access modes and a positive storage request', () => {
    assert.deepEqual(lines(strategy.validate(claim({}), context)), ['spec.accessModes: Required value: at least 1 access mode is required', 'spec.resources[storage]: Required value']);
    assert.deepEqual(lines(strategy.validate(claim({ accessModes: ['ReadWriteSometimes'], resources: { requests: { storage: '0' } } }), context)), [
      'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce"',
      'spec.resources[storage]: Invalid value: "0": must be greater than zero',
    ]);
    assert.deepEqual(lines(strategy.validate(claim({ ...valid, resources: { requests: { storage: '-1Gi' } } }), context)), [
      'spec.resources[storage]: Invalid value: "-1Gi": must be greater than or equal to 0',
      'spec.resources[storage]: Invalid value: "-1Gi": must be greater than zero',
    ]);
  });

  it('pvc validation checks volumeMode, storage class, selector and data source', () => {
    assert.deepEqual(lines(strategy.validate(claim({ ...valid, volumeMode: 'Raw' }), context)), ['spec.volumeMode: Unsupported value: "Raw": supported values: "Block", "Filesystem"']);
    assert.match(lines(strategy.validate(claim({ ...valid, storageClassName: 'Fast_SSD' }), context))[0] ?? '', /^spec\.storageClassName: Invalid value: "Fast_SSD": a DNS-1123 subdomain/);
    assert.deepEqual(lines(strategy.validate(claim({ ...valid, selector: { matchExpressions: [{ key: 'tier', operator: 'In' }, { key: 'x', operator: 'Near' }] } }), context)), [
      "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.selector.matchExpressions[1].operator: Invalid value: "Near": not a valid selector operator',
    ]);
    assert.deepEqual(lines(strategy.validate(claim({ ...valid, dataSource: { kind: 'Pod', name: 'p' } }), context)), [
      'spec.dataSource: Unsupported value: "Pod": supported values: "PersistentVolumeClaim", "VolumeSnapshot.snapshot.storage.k8s.io"',
    ]);
    assert.deepEqual(strategy.validate(claim({ ...valid, dataSource: { kind: 'VolumeSnapshot', apiGroup: 'snapshot.storage.k8s.io', name: 's' } }), context), []);
  });

  it('pvc update forbids spec changes except a first volumeName and growth of bound claims', () => {
    const old = claim(valid, { status: { phase: 'Pending' } });
    assert.deepEqual(strategy.validateUpdate(claim({ ...valid, volumeName: 'pv-1' }), old, context), []);
    const bigger = claim({ ...valid, resources: { requests: { storage: '2Gi' } } }, { status: { phase: 'Pending' } });
    assert.deepEqual(lines(strategy.validateUpdate(bigger, old, context)), ['spec: Forbidden: is immutable after creation except resources.requests for bound claims']);
    const boundOld = claim({ ...valid, volumeName: 'pv-1' }, { status: { phase: 'Bound' } });
    const grown = claim({ ...valid, volumeName: 'pv-1', resources: { requests: { storage: '2Gi' } } }, { status: { phase: 'Bound' } });
    assert.deepEqual(strategy.validateUpdate(grown, boundOld, context), []);
    const sameSize = claim({ ...valid, volumeName: 'pv-1', resources: { requests: { storage: '1024Mi' } } }, { status: { phase: 'Bound' } });
    assert.deepEqual(strategy.validateUpdate(sameSize, boundOld, context), []);
    const shrunk = claim({ ...valid, volumeName: 'pv-1', resources: { requests: { storage: '512Mi' } } }, { status: { phase: 'Bound' } });
    assert.deepEqual(lines(strategy.validateUpdate(shrunk, boundOld, context)), ['spec.resources.requests.storage: Forbidden: field can not be less than previous value']);
    const renamed = claim({ ...valid, volumeName: 'pv-2' }, { status: { phase: 'Bound' } });
    assert.deepEqual(lines(strategy.validateUpdate(renamed, boundOld, context)), ['spec: Forbidden: is immutable after creation except resources.requests for bound claims']);
    const block = claim({ ...valid, volumeMode: 'Block' });
    assert.deepEqual(lines(strategy.validateUpdate(block, old, context)), [
      'spec: Forbidden: is immutable after creation except resources.requests for bound claims',
      'volumeMode: Invalid value: "Block": field is immutable',
    ]);
  });

  it('pvc update lets the beta storage-class annotation move to the field, and keeps the annotation fixed', () => {
    const annotation = 'volume.beta.kubernetes.io/storage-class';
    const old = claim(valid, { metadata: { name: 'data', namespace: 'default', annotations: { [annotation]: 'fast' } } });
    const upgraded = claim({ ...valid, storageClassName: 'fast' }, { metadata: { name: 'data', namespace: 'default', annotations: { [annotation]: 'fast' } } });
    assert.deepEqual(strategy.validateUpdate(upgraded, old, context), []);
    const changed = claim(valid, { metadata: { name: 'data', namespace: 'default', annotations: { [annotation]: 'slow' } } });
    assert.deepEqual(lines(strategy.validateUpdate(changed, old, context)), [`metadata.annotations.${annotation}: Invalid value: "slow": field is immutable`]);
  });

  it('pvc keeps status on update, checks status capacity, and selects by the legacy name field', () => {
    const old = claim(valid, { status: { phase: 'Bound' } });
    const next = claim(valid, { status: { phase: 'Lost' } });
    strategy.prepareForUpdate(next, old);
    assert.deepEqual(next.status, { phase: 'Bound' });
    const status = strategy.status;
    assert.ok(status !== undefined);
    assert.deepEqual(lines(status.validateUpdate(claim(valid, { status: { capacity: { storage: '-1' } } }), old, context)), [
      'status.capacity[storage]: Invalid value: -1: must be a valid resource quantity',
    ]);
    assert.deepEqual(strategy.selectableFields(old), { name: 'data' });
  });
});
