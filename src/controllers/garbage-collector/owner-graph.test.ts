import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject, OwnerReference } from '../../apimachinery/object.js';
import { itemKey, locate, nodeOf, parseItemKey, type GraphNode } from './graph-node.js';
import { OwnerGraph } from './owner-graph.js';

const PREFIX = '/vk8s/core/configmaps/';
const CM = { group: '', kind: 'ConfigMap' };

function node(name: string, uid: string, owners: OwnerReference[] = [], meta: Partial<KubeObject['metadata']> = {}, cluster = 'acme/default/vk1'): GraphNode {
  const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, uid, ownerReferences: owners, ...meta } };
  const made = nodeOf(CM, PREFIX, `${PREFIX}${cluster}/${name}`, object);
  assert.ok(made);
  return made;
}

const ref = (name: string, uid: string, extra: Partial<OwnerReference> = {}): OwnerReference => ({ apiVersion: 'v1', kind: 'ConfigMap', name, uid, ...extra });
const deleting = (finalizer: string): Partial<KubeObject['metadata']> => ({ deletionTimestamp: '2020-01-01T00:00:00Z', finalizers: [finalizer] });

describe('graph nodes', () => {
  it('graph node locates the cluster and name in a store key and round-trips work items', () => {
    assert.deepEqual(locate(PREFIX, `${PREFIX}acme/default/vk1/web`), { cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, name: 'web' });
    assert.equal(locate(PREFIX, `${PREFIX}acme/default/web`), undefined);
    assert.equal(locate(PREFIX, '/vk8s/apps/deployments/acme/default/vk1/web'), undefined);
    const item = itemKey(`${PREFIX}acme/default/vk1/web`, 'u-1');
    assert.deepEqual(parseItemKey(item), { storeKey: `${PREFIX}acme/default/vk1/web`, uid: 'u-1' });
    const n = node('web', 'u-1', [], deleting('foregroundDeletion'));
    assert.deepEqual([n.id, n.beingDeleted, n.deletingDependents, n.orphaning], ['acme/default/vk1/u-1', true, true, false]);
  });
});

describe('OwnerGraph', () => {
  it('owner graph looks at a dependent whose owner it does not know, and not once the owner is known', () => {
    const graph = new OwnerGraph();
    const dependent = node('d', 'ud', [ref('o', 'uo')]);
    assert.deepEqual(graph.upsert(dependent), [dependent.item]);
    assert.deepEqual(graph.upsert(node('o', 'uo')), []);
    assert.deepEqual(graph.upsert(dependent), []);
    assert.deepEqual(graph.dependentsOf('acme/default/vk1/uo').map((n) => n.name), ['d']);
  });

  it('owner graph looks at the dependents of a removed owner', () => {
    const graph = new OwnerGraph();
    const owner = node('o', 'uo');
    graph.upsert(owner);
    const a = node('a', 'ua', [ref('o', 'uo')]);
    const b = node('b', 'ub', [ref('o', 'uo')]);
    graph.upsert(a);
    graph.upsert(b);
    assert.deepEqual(graph.removeAt(owner.storeKey).sort(), [a.item, b.item].sort());
    assert.equal(graph.get(owner.id), undefined);
    assert.deepEqual(graph.removeAt(owner.storeKey), [], 'removing twice does nothing');
  });

  it('owner graph looks at an owner deleting in the foreground when its dependents change or go', () => {
    const graph = new OwnerGraph();
    const owner = node('o', 'uo', [], deleting('foregroundDeletion'));
    assert.deepEqual(graph.upsert(owner), [owner.item]);
    const dependent = node('d', 'ud', [ref('o', 'uo', { blockOwnerDeletion: true })]);
    assert.deepEqual(graph.upsert(dependent).sort(), [dependent.item, owner.item].sort(), 'the dependent of a waiting owner is looked at, and the owner');
    assert.deepEqual(graph.removeAt(dependent.storeKey), [owner.item]);
  });

  it('owner graph looks at owners being deleted with orphan and ignores other objects being deleted', () => {
    const graph = new OwnerGraph();
    const orphaning = node('o', 'uo', [], deleting('orphan'));
    assert.deepEqual(graph.upsert(orphaning), [orphaning.item]);
    assert.deepEqual(graph.upsert(node('x', 'ux', [ref('gone', 'ug')], deleting('example.com/hold'))), [], 'an object being deleted waits');
  });

  it('owner graph keeps owners within their cluster and checks the reference names the owner', () => {
    const graph = new OwnerGraph();
    graph.upsert(node('o', 'uo', [], {}, 'acme/default/vk2'));
    const elsewhere = node('d', 'ud', [ref('o', 'uo')]);
    assert.deepEqual(graph.upsert(elsewhere), [elsewhere.item], 'an owner in another cluster is not its owner');
    graph.upsert(node('o', 'uo'));
    const misnamed = node('m', 'um', [ref('other-name', 'uo')]);
    assert.deepEqual(graph.upsert(misnamed), [misnamed.item]);
  });

  it('owner graph replaces a resource on relist and treats an object created again as a new node', () => {
    const graph = new OwnerGraph();
    const owner = node('o', 'uo');
    const dependent = node('d', 'ud', [ref('o', 'uo')]);
    graph.replace(PREFIX, [owner, dependent]);
    assert.deepEqual(graph.attention(), []);
    assert.deepEqual(graph.replace(PREFIX, [dependent]), [dependent.item], 'the owner missing from the relist is removed');
    const again = node('o', 'uo2');
    graph.upsert(owner);
    assert.deepEqual(graph.upsert(again), [dependent.item], 'the same key with a new uid: the old object is gone');
    assert.equal(graph.size, 2);
  });
});
