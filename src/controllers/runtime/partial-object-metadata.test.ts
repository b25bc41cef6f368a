import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { partialObjectMetadata } from './partial-object-metadata.js';

describe('partialObjectMetadata', () => {
  it('keeps the type and metadata, drops managedFields and everything outside metadata', () => {
    const labels = { app: 'web' };
    const object: KubeObject = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 's1',
        uid: 'u1',
        resourceVersion: '7',
        labels,
        annotations: { 'svc.io/sites': 'a' },
        ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'u0' }],
        deletionTimestamp: '2026-11-22T00:00:00Z',
        managedFields: [{ manager: 'kubectl', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': {} } }],
      },
      data: { password: 'aHVudGVyMg==' },
      type: 'Opaque',
    };
    const partial = partialObjectMetadata(object);
    const { managedFields: _m, ...metadata } = object.metadata;
    assert.deepEqual(partial, { apiVersion: 'v1', kind: 'Secret', metadata });
    assert.equal(partial.metadata.labels, labels, 'shared, not copied');
    assert.ok(object.metadata.managedFields !== undefined, 'the source object is left as it is');
  });
});
