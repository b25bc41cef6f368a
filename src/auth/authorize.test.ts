import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Access, authorize } from './authorize.js';
import type { Principal, Role } from './principal.js';

const principal = (tenant: string, roles: Record<string, Role>): Principal => ({ tenant, user: `u@${tenant}`, credential: 'c', roles });

describe('authorize', () => {
  it('decides read, write and manage from the role in the namespace or "*"', () => {
    const matrix: Array<[Record<string, Role>, string, Access, boolean]> = [
      [{ '*': 'admin' }, 'default', 'manage', true],
      [{ '*': 'monitor' }, 'default', 'read', true],
      [{ '*': 'monitor' }, 'default', 'write', false],
      [{ default: 'editor' }, 'default', 'write', true],
      [{ default: 'editor' }, 'default', 'manage', false],
      [{ default: 'editor' }, 'system', 'read', false],
      [{ default: 'monitor' }, 'shared', 'read', true],
      [{ default: 'monitor' }, 'shared', 'write', false],
      [{ default: 'admin', '*': 'monitor' }, 'default', 'manage', true],
      [{ default: 'admin', '*': 'monitor' }, 'other', 'write', false],
      [{}, 'shared', 'read', false],
    ];
    for (const [roles, namespace, access, allowed] of matrix) {
      assert.equal(authorize(principal('acme', roles), access, namespace).allowed, allowed, `${JSON.stringify(roles)} ${access} ${namespace}`);
    }
  });

  it('platform namespaces: readable by every tenant, writable only by the platform tenant', () => {
    assert.equal(authorize(principal('acme', {}), 'read', 'svc-io-shared').allowed, true);
    assert.equal(authorize(principal('acme', { '*': 'admin' }), 'write', 'svc-io-shared').allowed, false);
    assert.equal(authorize(principal('svc-io', { '*': 'admin' }), 'write', 'svc-io-system').allowed, true);
    assert.equal(authorize(principal('svc-io', { '*': 'monitor' }), 'write', 'svc-io-system').allowed, false);
    const denied = authorize(principal('acme', { default: 'monitor' }), 'write', 'default');
    assert.ok(!denied.allowed && /has role monitor in namespace default; write needs editor or above/.test(denied.reason));
  });
});
