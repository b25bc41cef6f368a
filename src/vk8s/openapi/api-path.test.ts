import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseApiPath } from './api-path.js';

describe('parseApiPath', () => {
  it('parseApiPath reads group, version, namespace scope, name and subresource', () => {
    assert.deepEqual(parseApiPath('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'), {
      group: 'apps', version: 'v1', resource: 'deployments', namespaced: true, named: true, subresource: 'scale', watchPrefix: false,
    });
    assert.deepEqual(parseApiPath('/api/v1/pods'), { group: '', version: 'v1', resource: 'pods', namespaced: false, named: false, watchPrefix: false });
  });

  it('parseApiPath tells the namespaces resource from a namespaced path', () => {
    assert.deepEqual(parseApiPath('/api/v1/namespaces/{name}/status'), { group: '', version: 'v1', resource: 'namespaces', namespaced: false, named: true, subresource: 'status', watchPrefix: false });
    assert.deepEqual(parseApiPath('/api/v1/namespaces'), { group: '', version: 'v1', resource: 'namespaces', namespaced: false, named: false, watchPrefix: false });
    assert.equal(parseApiPath('/api/v1/namespaces/{namespace}/configmaps')?.resource, 'configmaps');
  });

  it('parseApiPath marks the legacy watch prefix', () => {
    assert.deepEqual(parseApiPath('/apis/batch/v1beta1/watch/namespaces/{namespace}/cronjobs/{name}'), {
      group: 'batch', version: 'v1beta1', resource: 'cronjobs', namespaced: true, named: true, watchPrefix: true,
    });
  });

  it('parseApiPath rejects paths that are not resource paths', () => {
    for (const path of ['/version/', '/apis/apps/', '/api/v1/', '/apis/', '/api/v1/namespaces/{namespace}/pods/{name}/proxy/{path}', '/logs/{logpath}']) {
      assert.equal(parseApiPath(path), undefined, path);
    }
  });
});
