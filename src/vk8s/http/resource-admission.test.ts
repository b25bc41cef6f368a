import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { Role } from '../../auth/principal.js';
import { parseRequestInfo } from './request-info.js';
import { admitResourceRequest } from './resource-admission.js';
import type { ClusterRequestContext } from './resource-request.js';

function context(role: Role): ClusterRequestContext {
  return {
    principal: { tenant: 'acme', user: 'u@acme', credential: 'c', roles: { default: role } },
    cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' },
    createdAt: '2020-01-01T00:00:00Z',
    uid: 'uid',
    resourceVersion: '1',
  };
}

function admit(role: Role, method: string, path: string): StatusError | string {
  const info = parseRequestInfo(method, path, {});
  assert.ok(info !== undefined);
  try {
    return admitResourceRequest(context(role), info).resource;
  } catch (error) {
    assert.ok(error instanceof StatusError);
    return error;
  }
}

describe('admitResourceRequest', () => {
  it('admitResourceRequest lets readers read pods and their logs but not open sessions, whatever the method', () => {
    assert.equal(admit('monitor', 'GET', '/api/v1/namespaces/default/pods/p/log'), 'pods');
    for (const [method, verb] of [['GET', 'get'], ['POST', 'create']] as const) {
      const refused = admit('monitor', method, '/api/v1/namespaces/default/pods/p/exec');
      assert.ok(refused instanceof StatusError);
      assert.equal(refused.code, 403);
      assert.match(refused.message, new RegExp(`^pods "p" is forbidden: User "u@acme" cannot ${verb} resource "pods/exec" in API group "" in the namespace "default": `));
    }
    assert.equal(admit('editor', 'GET', '/api/v1/namespaces/default/pods/p/portforward'), 'pods');
  });

  it('admitResourceRequest refuses subresources the seed does not list, and other namespaces', () => {
    const eviction = admit('admin', 'POST', '/api/v1/namespaces/default/pods/p/eviction');
    assert.ok(eviction instanceof StatusError);
    assert.equal(eviction.code, 405);
    assert.equal(admit('admin', 'POST', '/api/v1/namespaces/default/pods/p/attach'), 'pods', 'attach is served (issue 22)');
    const elsewhere = admit('admin', 'POST', '/api/v1/namespaces/other/pods/p/exec');
    assert.ok(elsewhere instanceof StatusError);
    assert.equal(elsewhere.message, 'pods "p" is forbidden: User "u@acme" cannot create resource "pods/exec" in API group "" in the namespace "other": this virtual cluster has only the namespace "default"');
  });
});
