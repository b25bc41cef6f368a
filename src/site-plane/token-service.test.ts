import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../auth/principal.js';
import { parseTokenRequest, tokenIssueDenial } from './token-service.js';

const principal = (tenant: string, roles: Principal['roles']): Principal => ({ tenant, user: `u@${tenant}`, credential: 'c', roles });

describe('token service', () => {
  it('token issue needs a tenant admin for customer edge and a platform admin for regional edge', () => {
    assert.equal(tokenIssueDenial(principal('acme', { '*': 'admin' }), 'CUSTOMER_EDGE'), undefined);
    assert.equal(tokenIssueDenial(principal('acme', { system: 'admin' }), 'CUSTOMER_EDGE'), undefined);
    assert.match(tokenIssueDenial(principal('acme', { '*': 'editor' }), 'CUSTOMER_EDGE') ?? '', /needs the admin role in namespace system: user u@acme has role editor/);
    assert.match(tokenIssueDenial(principal('acme', { '*': 'admin' }), 'REGIONAL_EDGE') ?? '', /only the platform's administrators/);
    assert.equal(tokenIssueDenial(principal('svc-io', { '*': 'admin' }), 'REGIONAL_EDGE'), undefined);
    assert.match(tokenIssueDenial(principal('svc-io', { 'svc-io-system': 'admin' }), 'REGIONAL_EDGE') ?? '', /only the platform's administrators/);
    assert.match(tokenIssueDenial(principal('svc-io', { '*': 'admin' }), 'CUSTOMER_EDGE') ?? '', /regional-edge sites only/);
  });

  it('token request takes a type and a TTL within bounds', () => {
    assert.deepEqual(parseTokenRequest({ type: 'CUSTOMER_EDGE' }), { type: 'CUSTOMER_EDGE', ttlSeconds: 86400 });
    assert.deepEqual(parseTokenRequest({ type: 'REGIONAL_EDGE', ttl_seconds: 60 }), { type: 'REGIONAL_EDGE', ttlSeconds: 60 });
    assert.throws(() => parseTokenRequest({ type: 'EDGE' }), /type: Unsupported value: "EDGE"/);
    assert.throws(() => parseTokenRequest({ type: 'CUSTOMER_EDGE', ttl_seconds: 0 }), /ttl_seconds: Invalid value: 0/);
    assert.throws(() => parseTokenRequest({ type: 'CUSTOMER_EDGE', ttl_seconds: 1.5 }), /whole number/);
    assert.throws(() => parseTokenRequest({ type: 'CUSTOMER_EDGE', name: 'x' }), /name: unknown field/);
  });
});
