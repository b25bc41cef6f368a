import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { persistentVolumeStrategy } from '../../vk8s/kinds/persistent-volume.js';
import { boundVolume, provisionedVolume, shouldReclaim } from './provisioned-volume.js';

const claim: KubeObject = {
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name: 'data', namespace: 'shop', uid: '0b7c4a52-1111-4222-8333-444455556666', resourceVersion: '42' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } }, volumeMode: 'Filesystem' },
};
const context = { cluster: { tenant: 'acme', namespace: 'shop', name: 'vk' }, now: '2020-01-01T00:00:00Z' };

describe('provisioned volume rules', () => {
  it('a provisioned volume is the claim as kube\'s provisioner describes it, local on the sites, and valid', () => {
    const volume = provisionedVolume(claim, 'pvc-0b7c4a52-1111-4222-8333-444455556666', ['paris', 'lyon']);
    assert.deepEqual(volume, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pvc-0b7c4a52-1111-4222-8333-444455556666', annotations: { 'pv.kubernetes.io/provisioned-by': 'edgeplane.io/site-local' } },
      spec: {
        capacity: { storage: '2Gi' },
        accessModes: ['ReadWriteOnce'],
        claimRef: { kind: 'PersistentVolumeClaim', namespace: 'shop', name: 'data', uid: '0b7c4a52-1111-4222-8333-444455556666', apiVersion: 'v1', resourceVersion: '42' },
        persistentVolumeReclaimPolicy: 'Delete',
        volumeMode: 'Filesystem',
        local: { path: '/persistent-volumes/pvc-0b7c4a52-1111-4222-8333-444455556666' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/siteName', operator: 'In', values: ['lyon', 'paris'] }] }] } },
      },
    });
    persistentVolumeStrategy.defaults(volume);
    assert.deepEqual(persistentVolumeStrategy.validate(volume, context), []);
  });

  it('a provisioned volume keeps the claim\'s storage class and block mode', () => {
    const spec = provisionedVolume({ ...claim, spec: { ...(claim.spec as object), storageClassName: 'fast', volumeMode: 'Block' } }, 'v', ['a']).spec as Record<string, unknown>;
    assert.equal(spec['storageClassName'], 'fast');
    assert.equal(spec['volumeMode'], 'Block');
  });

  it('a volume becomes Bound once', () => {
    const volume = provisionedVolume(claim, 'v', ['a']);
    const bound = boundVolume({ ...volume, status: { phase: 'Pending' } });
    assert.deepEqual(bound?.status, { phase: 'Bound' });
    assert.ok(bound !== undefined);
    assert.equal(boundVolume(bound), undefined);
  });

  it('a provisioned volume is reclaimed when its claim is gone or made again, never otherwise', () => {
    const volume = provisionedVolume(claim, 'v', ['a']);
    assert.equal(shouldReclaim(volume, claim), false);
    assert.equal(shouldReclaim(volume, undefined), true);
    assert.equal(shouldReclaim(volume, { ...claim, metadata: { ...claim.metadata, uid: 'another' } }), true);
    assert.equal(shouldReclaim({ ...volume, metadata: { name: 'v' } }, undefined), false, 'not provisioned by the platform');
    assert.equal(shouldReclaim({ ...volume, spec: { ...(volume.spec as object), persistentVolumeReclaimPolicy: 'Retain' } }, undefined), false);
  });
});
