import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { isPodActive } from '../runtime/pod-state.js';
import { eventually, labelOnlyTemplateFor, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import { replicaSetController } from './replica-set-controller.js';
import type { ReplicaSetStatusView } from './replica-set-status.js';

describe('replica set controller over a memory store', () => {
  let h: ControllerWorld;

  before(async () => {
    h = await startControllerWorld();
    h.placement.place(['re-paris', 're-tokyo']);
    await h.startManager({
      controllers: () => [replicaSetController()],
      podTemplateFor: (cluster, workload, template, site) => {
        if (workload.metadata.annotations?.['svc.io/workload-flavor'] === 'huge') throw new Error('metadata.annotations[svc.io/workload-flavor]: Unsupported value: "huge"');
        return labelOnlyTemplateFor(cluster, workload, template, site);
      },
    });
  });
  after(() => h.stop());

  const replicaSet = async (name: string, replicas: number, extra: { labels?: Record<string, string>; annotations?: Record<string, string> } = {}): Promise<KubeObject> => {
    const rs: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, labels: { app: name, ...extra.labels }, ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }) },
      spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    h.replicaSets.strategy.defaults(rs);
    return h.replicaSets.create(h.scope, rs);
  };
  const podsOf = async (name: string): Promise<KubeObject[]> => (await h.list(h.pods)).filter((p) => p.metadata.labels?.app === name && isPodActive(p));
  const sitesOf = (pods: readonly KubeObject[]): string[] => pods.map((p) => p.metadata.labels?.['svc.io/siteName'] ?? '').sort();

  it('replica set controller runs a ReplicaSet without a site label on every placed site, replicas per site', async () => {
    await replicaSet('bare', 2);
    await eventually('4 pods', async () => (await podsOf('bare')).length === 4);
    assert.deepEqual(sitesOf(await podsOf('bare')), ['re-paris', 're-paris', 're-tokyo', 're-tokyo']);
    await eventually('the status counts them', async () => statusOf<ReplicaSetStatusView>(await h.replicaSets.get(h.cluster, 'bare')).replicas === 4);
    h.placement.place(['re-paris']);
    await eventually('the pods of the site left are deleted', async () => sitesOf(await podsOf('bare')).join() === 're-paris,re-paris');
    h.placement.place(['re-paris', 're-tokyo']);
  });

  it('replica set controller runs a site ReplicaSet only on its site, and creates nothing while the site is not placed', async () => {
    await replicaSet('sited', 3, { labels: { 'svc.io/siteName': 're-tokyo' } });
    await eventually('3 pods on its site', async () => sitesOf(await podsOf('sited')).join() === 're-tokyo,re-tokyo,re-tokyo');
    await replicaSet('elsewhere', 1, { labels: { 'svc.io/siteName': 'ce-nowhere' } });
    await eventually('its status is written', async () => statusOf<ReplicaSetStatusView>(await h.replicaSets.get(h.cluster, 'elsewhere')).observedGeneration === 1);
    assert.equal((await podsOf('elsewhere')).length, 0);
    await h.replicaSets.update(h.scope, 'sited', (live) => ({ ...live, spec: { ...specOf<ReplicaSetSpec>(live), replicas: 1 } }));
    await eventually('scaled down to 1', async () => (await podsOf('sited')).length === 1);
  });

  it('replica set controller records FailedCreate and a ReplicaFailure condition when the site template cannot be made', async () => {
    await replicaSet('broken', 1, { annotations: { 'svc.io/workload-flavor': 'huge' } });
    await eventually('the failure is in the status', async () => statusOf<ReplicaSetStatusView>(await h.replicaSets.get(h.cluster, 'broken')).conditions?.[0]?.reason === 'FailedCreate');
    assert.ok(h.events.recorded.some((e) => e.object === 'ReplicaSet/broken' && e.type === 'Warning' && e.reason === 'FailedCreate' && e.message === 'Error creating: metadata.annotations[svc.io/workload-flavor]: Unsupported value: "huge"'));
  });
});
