import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DAY, HOUR, NOW, ago, meta, namedDoc, object } from './testing/fixtures.js';
import { persistentVolumeClaimPrinter, persistentVolumePrinter } from './volume-printers.js';

describe('persistent volume printer', () => {
  const printer = persistentVolumePrinter(namedDoc);

  it('persistent volume printer prints a bound volume', () => {
    const pv = object('v1', 'PersistentVolume', { ...meta('pv-data', 2 * DAY), namespace: undefined }, {
      spec: {
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Retain',
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data' },
        storageClassName: 'standard',
        volumeMode: 'Filesystem',
        hostPath: { path: '/data' },
      },
      status: { phase: 'Bound' },
    });
    assert.deepEqual(printer.cells(pv, NOW), ['pv-data', '10Gi', 'RWO,RWX', 'Retain', 'Bound', 'default/data', 'standard', '', '2d', 'Filesystem']);
  });

  it('persistent volume printer prints canonical capacity, Terminating, the beta class annotation and the default volume mode', () => {
    const pv = object('v1', 'PersistentVolume', meta('pv-old', HOUR, { deletionTimestamp: ago(0), annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } }), {
      spec: { capacity: { storage: '1024Mi' }, accessModes: ['ReadOnlyMany'], persistentVolumeReclaimPolicy: 'Delete', storageClassName: 'fast' },
      status: { phase: 'Failed', reason: 'VolumeFailedDelete' },
    });
    assert.deepEqual(printer.cells(pv, NOW), ['pv-old', '1Gi', 'ROX', 'Delete', 'Terminating', '', 'slow', 'VolumeFailedDelete', '60m', 'Filesystem']);
    assert.deepEqual(printer.cells(object('v1', 'PersistentVolume', meta('bare', HOUR), {}), NOW).slice(1, 8), ['0', '', 'Retain', 'Pending', '', '', ''], 'kube defaults');
    const block = object('v1', 'PersistentVolume', meta('raw', HOUR), { spec: { volumeMode: 'Block' }, status: { phase: 'Available' } });
    assert.deepEqual([printer.cells(block, NOW)[4], printer.cells(block, NOW)[9]], ['Available', 'Block']);
  });

  it('persistent volume printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.priority, c.description]),
      [
        ['Name', 0, 'ObjectMeta.name'],
        ['Capacity', 0, 'PersistentVolumeSpec.capacity'],
        ['Access Modes', 0, 'PersistentVolumeSpec.accessModes'],
        ['Reclaim Policy', 0, 'PersistentVolumeSpec.persistentVolumeReclaimPolicy'],
        ['Status', 0, 'PersistentVolumeStatus.phase'],
        ['Claim', 0, 'PersistentVolumeSpec.claimRef'],
        ['StorageClass', 0, 'StorageClass of the pv'],
        ['Reason', 0, 'PersistentVolumeStatus.reason'],
        ['Age', 0, 'ObjectMeta.creationTimestamp'],
        ['VolumeMode', 1, 'PersistentVolumeSpec.volumeMode'],
      ],
    );
  });
});

describe('persistent volume claim printer', () => {
  const printer = persistentVolumeClaimPrinter(namedDoc);

  it('persistent volume claim printer prints a bound claim from its status', () => {
    const pvc = object('v1', 'PersistentVolumeClaim', meta('data', DAY), {
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } }, volumeName: 'pvc-1234', storageClassName: 'standard', volumeMode: 'Filesystem' },
      status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '8Gi' } },
    });
    assert.deepEqual(printer.cells(pvc, NOW), ['data', 'Bound', 'pvc-1234', '8Gi', 'RWO', 'standard', '24h', 'Filesystem']);
  });

  it('persistent volume claim printer leaves capacity and access modes blank until bound', () => {
    const pvc = object('v1', 'PersistentVolumeClaim', meta('pending', HOUR), { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } }, status: { phase: 'Pending' } });
    assert.deepEqual(printer.cells(pvc, NOW), ['pending', 'Pending', '', '', '', '', '60m', 'Filesystem']);
    assert.equal(printer.cells(object('v1', 'PersistentVolumeClaim', meta('new', HOUR), { spec: {} }), NOW)[1], 'Pending', 'the default phase');
    const deleting = object('v1', 'PersistentVolumeClaim', meta('gone', HOUR, { deletionTimestamp: ago(0) }), { spec: {}, status: { phase: 'Bound' } });
    assert.equal(printer.cells(deleting, NOW)[1], 'Terminating');
  });

  it('persistent volume claim printer defines kube 1.17 columns', () => {
    assert.deepEqual(
      printer.columns.map((c) => [c.name, c.priority, c.description]),
      [
        ['Name', 0, 'ObjectMeta.name'],
        ['Status', 0, 'PersistentVolumeClaimStatus.phase'],
        ['Volume', 0, 'PersistentVolumeClaimSpec.volumeName'],
        ['Capacity', 0, 'PersistentVolumeClaimStatus.capacity'],
        ['Access Modes', 0, 'PersistentVolumeClaimStatus.accessModes'],
        ['StorageClass', 0, 'StorageClass of the pvc'],
        ['Age', 0, 'ObjectMeta.creationTimestamp'],
        ['VolumeMode', 1, 'PersistentVolumeClaimSpec.volumeMode'],
      ],
    );
  });
});
