import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { AllocationContext } from '../../registry/strategy.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { DEFAULT_SERVICE_CIDR, serviceIpAllocation, serviceIpKeyPrefix } from './service-ip-allocation.js';

const cluster = { tenant: 'acme', namespace: 'default', name: 'vk' };

function contextOf(store: Store, dryRun = false, name = 'vk'): AllocationContext {
  return { cluster: { ...cluster, name }, now: '2020-01-01T00:00:00Z', store, dryRun };
}

function service(name: string, spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default', uid: `uid-${name}` }, spec: { type: 'ClusterIP', ports: [{ port: 80 }], ...spec } };
}

const clusterIpOf = (object: KubeObject): string | undefined => (object.spec as { clusterIP?: string }).clusterIP;

async function reservations(store: Store, name = 'vk'): Promise<Record<string, unknown>> {
  const prefix = serviceIpKeyPrefix({ ...cluster, name });
  const { items } = await store.list(prefix);
  return Object.fromEntries(items.map((kv) => [kv.key.slice(prefix.length), JSON.parse(kv.value) as unknown]));
}

async function rejection(promise: Promise<unknown>): Promise<StatusError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof StatusError, `expected a StatusError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected a rejection');
}

describe('Service ClusterIP allocation', () => {
  it('allocation picks a random free address of the default range and records its owner', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation({ random: () => 0.5 });
    const object = service('web');
    await hooks.beforeCreate(object, contextOf(store));
    assert.equal(DEFAULT_SERVICE_CIDR, '10.96.0.0/16');
    assert.equal(clusterIpOf(object), '10.96.128.0', 'offset 32767 of 65534 is 10.96.0.1 + 32767');
    assert.deepEqual(await reservations(store), { '10.96.128.0': { namespace: 'default', name: 'web', uid: 'uid-web' } });
    const second = service('api');
    await hooks.beforeCreate(second, contextOf(store));
    assert.equal(clusterIpOf(second), '10.96.128.1', 'a taken address moves the search on');
    await store.close();
  });

  it('allocation honours a free requested address and refuses a taken or out-of-range one', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation();
    await hooks.beforeCreate(service('dns', { clusterIP: '10.96.0.10' }), contextOf(store));
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.0.10']);
    const taken = await rejection(hooks.beforeCreate(service('other', { clusterIP: '10.96.0.10' }), contextOf(store)));
    assert.equal(taken.code, 422);
    assert.equal(taken.message, 'Service "other" is invalid: spec.clusterIP: Invalid value: "10.96.0.10": provided IP is already allocated');
    const outside = await rejection(hooks.beforeCreate(service('far', { clusterIP: '10.0.0.1' }), contextOf(store)));
    assert.equal(outside.message, 'Service "far" is invalid: spec.clusterIP: Invalid value: "10.0.0.1": provided IP is not in the valid range. The range of valid IPs is 10.96.0.0/16');
    const network = await rejection(hooks.beforeCreate(service('net', { clusterIP: '10.96.0.0' }), contextOf(store)));
    assert.match(network.message, /provided IP is not in the valid range/);
    const broadcast = await rejection(hooks.beforeCreate(service('bc', { clusterIP: '10.96.255.255' }), contextOf(store)));
    assert.match(broadcast.message, /provided IP is not in the valid range/);
    await store.close();
  });

  it('allocation gives headless and ExternalName services nothing', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation();
    const headless = service('headless', { clusterIP: 'None' });
    await hooks.beforeCreate(headless, contextOf(store));
    const external = service('ext', { type: 'ExternalName', externalName: 'x.example.com', ports: [] });
    await hooks.beforeCreate(external, contextOf(store));
    assert.equal(clusterIpOf(headless), 'None');
    assert.equal(clusterIpOf(external), undefined);
    assert.deepEqual(await reservations(store), {});
    await store.close();
  });

  it('allocation reports a full range as kube does', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation({ cidr: '192.168.0.0/30' });
    await hooks.beforeCreate(service('a'), contextOf(store));
    await hooks.beforeCreate(service('b'), contextOf(store));
    assert.deepEqual(Object.keys(await reservations(store)).sort(), ['192.168.0.1', '192.168.0.2']);
    const full = await rejection(hooks.beforeCreate(service('c'), contextOf(store)));
    assert.equal(full.code, 500);
    assert.equal(full.message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
    await store.close();
  });

  it('concurrent allocations never hand out one address twice', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation({ cidr: '10.1.0.0/28', random: () => 0 });
    const objects = Array.from({ length: 14 }, (_, i) => service(`s${i}`));
    await Promise.all(objects.map((o) => hooks.beforeCreate(o, contextOf(store))));
    const ips = objects.map(clusterIpOf);
    assert.equal(new Set(ips).size, 14);
    assert.equal(Object.keys(await reservations(store)).length, 14);
    const extra = await Promise.allSettled([hooks.beforeCreate(service('x'), contextOf(store)), hooks.beforeCreate(service('y'), contextOf(store))]);
    assert.ok(extra.every((r) => r.status === 'rejected'));
    await store.close();
  });

  it('concurrent requests for one address: exactly one wins', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation();
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((n) => hooks.beforeCreate(service(n, { clusterIP: '10.96.1.1' }), contextOf(store))));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    await store.close();
  });

  it('each virtual cluster has its own pool', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation();
    await hooks.beforeCreate(service('dns', { clusterIP: '10.96.0.10' }), contextOf(store, false, 'one'));
    await hooks.beforeCreate(service('dns', { clusterIP: '10.96.0.10' }), contextOf(store, false, 'two'));
    assert.deepEqual(Object.keys(await reservations(store, 'one')), ['10.96.0.10']);
    assert.deepEqual(Object.keys(await reservations(store, 'two')), ['10.96.0.10']);
    await store.close();
  });

  it('dry-run checks and picks an address without reserving it', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation({ random: () => 0 });
    const object = service('web');
    await hooks.beforeCreate(object, contextOf(store, true));
    assert.equal(clusterIpOf(object), '10.96.0.1');
    await hooks.beforeCreate(service('ok', { clusterIP: '10.96.0.10' }), contextOf(store, true));
    assert.deepEqual(await reservations(store), {});
    await hooks.beforeCreate(service('dns', { clusterIP: '10.96.0.10' }), contextOf(store));
    const taken = await rejection(hooks.beforeCreate(service('again', { clusterIP: '10.96.0.10' }), contextOf(store, true)));
    assert.match(taken.message, /provided IP is already allocated/);
    const outside = await rejection(hooks.beforeCreate(service('far', { clusterIP: '10.97.0.1' }), contextOf(store, true)));
    assert.match(outside.message, /not in the valid range/);
    const full = serviceIpAllocation({ cidr: '10.2.0.0/30' });
    await full.beforeCreate(service('a'), contextOf(store, false, 'small'));
    await full.beforeCreate(service('b'), contextOf(store, false, 'small'));
    await rejection(full.beforeCreate(service('c'), contextOf(store, true, 'small')));
    await store.close();
  });

  it('undo releases a reservation made for a failed write', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation();
    const undo = await hooks.beforeCreate(service('web', { clusterIP: '10.96.3.3' }), contextOf(store));
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.3.3']);
    await undo();
    assert.deepEqual(await reservations(store), {});
    await undo();
    await store.close();
  });

  it('afterDelete releases the address so it can be reused; dry-run deletes keep it', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation();
    const object = service('web', { clusterIP: '10.96.5.5' });
    await hooks.beforeCreate(object, contextOf(store));
    await hooks.afterDelete(object, contextOf(store, true));
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.5.5']);
    await hooks.afterDelete(service('impostor', { clusterIP: '10.96.5.5' }), contextOf(store));
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.5.5'], 'another uid does not release it');
    await hooks.afterDelete(object, contextOf(store));
    assert.deepEqual(await reservations(store), {});
    await hooks.beforeCreate(service('next', { clusterIP: '10.96.5.5' }), contextOf(store));
    assert.deepEqual(await reservations(store), { '10.96.5.5': { namespace: 'default', name: 'next', uid: 'uid-next' } });
    await store.close();
  });

  it('updates allocate when leaving ExternalName and release when becoming one', async () => {
    const store = openMemoryStore();
    const hooks = serviceIpAllocation({ random: () => 0 });
    const external = service('web', { type: 'ExternalName', externalName: 'x.example.com' });
    const internal = service('web');
    await hooks.beforeUpdate(internal, external, contextOf(store));
    assert.equal(clusterIpOf(internal), '10.96.0.1');
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.0.1']);
    const same = service('web', { clusterIP: '10.96.0.1', ports: [{ port: 81 }] });
    await hooks.beforeUpdate(same, internal, contextOf(store));
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.0.1'], 'other updates leave the reservation alone');
    const undo = await hooks.beforeUpdate(service('web', { type: 'ExternalName', externalName: 'y.example.com' }), internal, contextOf(store));
    assert.deepEqual(await reservations(store), {});
    await undo();
    assert.deepEqual(Object.keys(await reservations(store)), ['10.96.0.1'], 'undo takes the address back');
    await store.close();
  });
});
