import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RESOURCES } from '../resources.js';
import { parseApiPath } from './api-path.js';
import { operationVerb, servedPaths, servedVerbs } from './served-paths.js';

const verbsOf = (path: string): readonly string[] => {
  const parsed = parseApiPath(path);
  assert.ok(parsed, path);
  return servedVerbs(parsed, RESOURCES);
};

describe('served paths', () => {
  it('operationVerb maps kube actions to discovery verbs, connect by method', () => {
    assert.equal(operationVerb('get', 'list'), 'list');
    assert.equal(operationVerb('get', 'watchlist'), 'watch');
    assert.equal(operationVerb('post', 'post'), 'create');
    assert.equal(operationVerb('put', 'put'), 'update');
    assert.equal(operationVerb('post', 'connect'), 'create');
    assert.equal(operationVerb('get', 'connect'), 'get');
    assert.equal(operationVerb('head', 'connect'), undefined);
    assert.equal(operationVerb('get', undefined), undefined);
  });

  it('servedVerbs follows the resources table for resources and subresources', () => {
    assert.deepEqual([...verbsOf('/api/v1/namespaces/{namespace}/pods/{name}')].sort(), ['get', 'list', 'watch']);
    assert.deepEqual(verbsOf('/api/v1/namespaces/{namespace}/pods/{name}/exec'), ['create', 'get']);
    assert.deepEqual(verbsOf('/apis/apps/v1/namespaces/{namespace}/replicasets/{name}/scale'), ['get']);
    assert.deepEqual(verbsOf('/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale'), ['get', 'patch', 'update']);
    assert.deepEqual(verbsOf('/api/v1/namespaces/{namespace}/pods/{name}/attach'), ['create', 'get']);
    assert.deepEqual(verbsOf('/api/v1/namespaces/{namespace}/pods/{name}/eviction'), []);
    assert.deepEqual(verbsOf('/apis/networking.k8s.io/v1beta1/namespaces/{namespace}/ingresses'), []);
  });

  it('servedVerbs allows all-namespaces list and watch only where the table says so', () => {
    assert.deepEqual(verbsOf('/api/v1/serviceaccounts'), ['list', 'watch']);
    assert.deepEqual(verbsOf('/api/v1/watch/events'), ['watch']);
    assert.deepEqual(verbsOf('/api/v1/pods'), []);
    assert.deepEqual(verbsOf('/api/v1/watch/pods'), []);
    assert.deepEqual([...verbsOf('/api/v1/nodes')].sort(), ['get', 'list', 'watch']);
  });

  it('servedPaths keeps exactly the served operations and drops paths left empty', () => {
    const op = (action: string): Record<string, unknown> => ({ 'x-kubernetes-action': action, operationId: action });
    const parameters = [{ name: 'name', in: 'path' }];
    const kept = servedPaths(
      {
        '/api/v1/namespaces/{namespace}/pods/{name}': { get: op('get'), put: op('put'), patch: op('patch'), delete: op('delete'), parameters },
        '/api/v1/namespaces/{namespace}/pods/{name}/binding': { post: op('post') },
        '/api/v1/namespaces/{namespace}/services': { get: op('list'), post: op('post'), delete: op('deletecollection') },
      },
      RESOURCES,
    );
    assert.deepEqual(Object.keys(kept), ['/api/v1/namespaces/{namespace}/pods/{name}', '/api/v1/namespaces/{namespace}/services']);
    assert.deepEqual(kept['/api/v1/namespaces/{namespace}/pods/{name}'], { get: op('get'), parameters });
    assert.deepEqual(Object.keys(kept['/api/v1/namespaces/{namespace}/services'] ?? {}), ['get', 'post']);
  });
});
