import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { systemClock } from '../../common/clock.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { specOf } from './workload-types.js';

const scope: RequestScope = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, dryRun: false, fieldManager: 'edgeplane-scheduler' };

describe('pod binding through the pods store', () => {
  let store: Store;
  let pods: GenericStore;
  let storage: VirtualClusterStorage;

  before(async () => {
    store = openMemoryStore();
    storage = new VirtualClusterStorage({ store, clock: systemClock() });
    pods = storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
    pods.strategy.defaults(pod);
    await pods.create(scope, pod);
  });
  after(async () => {
    storage.stop();
    await store.close();
  });

  const bind = (node: string, extra: (pod: KubeObject) => void = () => {}): Promise<KubeObject> =>
    pods.update(
      scope,
      'web-1',
      (current) => {
        current.spec = { ...specOf<PodSpec>(current), nodeName: node };
        current.status = { ...(current.status as object), conditions: [{ type: 'PodScheduled', status: 'True' }] };
        extra(current);
        return current;
      },
      { subresource: 'binding' },
    );

  it('pod binding is refused through the main resource, as kube validation forbids spec changes', async () => {
    await assert.rejects(
      pods.update(scope, 'web-1', (current) => ({ ...current, spec: { ...specOf<PodSpec>(current), nodeName: 'site-a-node-1' } })),
      /pod updates may not change fields/,
    );
  });

  it('pod binding sets nodeName and status only, once', async () => {
    const bound = await bind('site-a-node-1', (pod) => {
      pod.metadata.labels = { app: 'other' };
      (pod.spec as PodSpec).restartPolicy = 'Never';
    });
    assert.equal(specOf<PodSpec>(bound).nodeName, 'site-a-node-1');
    assert.equal(specOf<PodSpec>(bound).restartPolicy, 'Always', 'other spec fields keep their stored value');
    assert.deepEqual(bound.metadata.labels, { app: 'web' }, 'metadata keeps its stored value');
    assert.deepEqual((bound.status as { conditions: unknown }).conditions, [{ type: 'PodScheduled', status: 'True' }]);
    await assert.rejects(bind('site-a-node-2'), /already assigned to node "site-a-node-1"/);
  });
});
