import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { findResource } from '../resources.js';
import { listBody, listJson } from './response-format.js';

describe('listJson', () => {
  it('list JSON assembled from item texts is byte for byte the serialized list body', () => {
    const resource = findResource('apps', 'v1', 'deployments');
    assert.ok(resource !== undefined);
    const items: KubeObject[] = [
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'a', resourceVersion: '5' } },
      { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'ü' }, spec: { replicas: 2 } },
    ];
    const texts = items.map((item) => Buffer.from(JSON.stringify(item)));
    for (const meta of [{ resourceVersion: '9' }, { resourceVersion: '9', continue: 'token' }]) {
      assert.equal(listJson(resource, texts, meta).toString('utf8'), JSON.stringify(listBody(resource, items, meta)));
      assert.equal(listJson(resource, [], meta).toString('utf8'), JSON.stringify(listBody(resource, [], meta)));
    }
  });
});
