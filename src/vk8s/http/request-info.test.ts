import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRequestInfo } from './request-info.js';

describe('parseRequestInfo', () => {
  it('parses namespaced core and group paths with verbs from the method', () => {
    assert.deepEqual(parseRequestInfo('GET', '/api/v1/namespaces/ns1/pods', {}), { verb: 'list', group: '', version: 'v1', resource: 'pods', subresource: undefined, namespace: 'ns1', name: undefined, watchPath: false });
    assert.equal(parseRequestInfo('GET', '/apis/apps/v1/namespaces/ns1/deployments/web', {})?.verb, 'get');
    assert.equal(parseRequestInfo('DELETE', '/apis/apps/v1/namespaces/ns1/deployments', {})?.verb, 'deletecollection');
    assert.equal(parseRequestInfo('PATCH', '/apis/apps/v1/namespaces/ns1/deployments/web/scale', {})?.subresource, 'scale');
  });

  it('treats watch=true and the legacy watch path as watch', () => {
    assert.equal(parseRequestInfo('GET', '/api/v1/namespaces/ns1/pods', { watch: 'true' })?.verb, 'watch');
    const legacy = parseRequestInfo('GET', '/api/v1/watch/namespaces/ns1/pods/p1', {});
    assert.equal(legacy?.verb, 'watch');
    assert.equal(legacy?.name, 'p1');
    assert.equal(legacy?.watchPath, true);
  });

  it('reads namespaces/{name} as the namespace object and cluster-scoped lists without a namespace', () => {
    const ns = parseRequestInfo('GET', '/api/v1/namespaces/ns1', {});
    assert.deepEqual([ns?.resource, ns?.name, ns?.namespace], ['namespaces', 'ns1', 'ns1']);
    const all = parseRequestInfo('GET', '/api/v1/serviceaccounts', {});
    assert.deepEqual([all?.resource, all?.namespace], ['serviceaccounts', undefined]);
    assert.equal(parseRequestInfo('GET', '/api/v1/namespaces', {})?.verb, 'list');
    const status = parseRequestInfo('PUT', '/api/v1/namespaces/ns1/status', {});
    assert.deepEqual([status?.resource, status?.name, status?.subresource], ['namespaces', 'ns1', 'status']);
  });

  it('rejects paths that are not resource paths', () => {
    assert.equal(parseRequestInfo('GET', '/api/v1', {}), undefined);
    assert.equal(parseRequestInfo('GET', '/api/v1/namespaces/ns1/pods/p1/log/extra', {}), undefined);
    assert.equal(parseRequestInfo('OPTIONS', '/api/v1/pods', {}), undefined);
  });
});
