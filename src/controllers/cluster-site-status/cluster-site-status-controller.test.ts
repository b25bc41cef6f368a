import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { deploymentController } from '../deployment/deployment-controller.js';
import { replicaSetController } from '../replicaset/replica-set-controller.js';
import { eventually, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import { clusterSiteStatusController } from './cluster-site-status-controller.js';
import type { ClusterSiteStatus } from './site-status-summary.js';

const SITES = ['ce-lyon', 're-paris'];

describe('cluster site status controller', () => {
  let h: ControllerWorld;
  const writes: Array<{ cluster: ClusterRef; summary: ClusterSiteStatus }> = [];
  const last = (): ClusterSiteStatus | undefined => writes.at(-1)?.summary;

  before(async () => {
    const writer = { write: (cluster: ClusterRef, summary: ClusterSiteStatus) => Promise.resolve(void writes.push({ cluster, summary })) };
    h = await startControllerWorld();
    h.placement.place(SITES);
    await h.startManager({ controllers: () => [deploymentController(), replicaSetController(), clusterSiteStatusController({ writer, coalesceMs: 50 })] });
  });
  after(() => h.stop());

  it('writes the per-site breakdown of a Deployment placed on two sites, then its readiness', async () => {
    const deployment: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    h.deployments.strategy.defaults(deployment);
    await h.deployments.create(h.scope, deployment);
    await eventually('four pods are counted on two sites', () => last()?.pods === 4);
    assert.deepEqual(writes.at(-1)?.cluster, h.cluster);
    assert.deepEqual(last()?.per_site, { 'ce-lyon': { pods: 2, ready: 0, pending: 2, failed: 0 }, 're-paris': { pods: 2, ready: 0, pending: 2, failed: 0 } });
    await h.readyPods();
    await eventually('all four are ready', () => last()?.ready === 4);
    assert.deepEqual(last()?.per_site['re-paris'], { pods: 2, ready: 2, pending: 0, failed: 0 });
  });

  it('writes nothing when a pod changes but the summary does not', async () => {
    const before = writes.length;
    const name = (await h.list(h.pods))[0]?.metadata.name ?? '';
    await h.pods.update(h.scope, name, (live) => ({ ...live, metadata: { ...live.metadata, annotations: { touched: 'yes' } } }), { retryOnConflict: true });
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(writes.length, before);
    await h.pods.delete(h.scope, name, { gracePeriodSeconds: 0 });
    await eventually('the deletion is counted', () => writes.length > before);
  });
});
