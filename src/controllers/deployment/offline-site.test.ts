import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PodSpec } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { nodeWithReachability } from '../../site-plane/site-lifecycle.js';
import { statusOf } from '../../vk8s/kinds/workload-types.js';
import { replicaSetController } from '../replicaset/replica-set-controller.js';
import { isPodActive, podConditionOf } from '../runtime/pod-state.js';
import { schedulerController } from '../scheduler/scheduler.js';
import { eventually, siteNode, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import { deploymentController } from './deployment-controller.js';
import type { DeploymentStatusView } from './deployment-status.js';

const WENT_OFFLINE = '2026-12-08T02:00:00Z';

describe('deployment controller with an offline site', () => {
  let h: ControllerWorld;

  before(async () => {
    h = await startControllerWorld();
    h.placement.place(['re-paris', 're-tokyo', 'ce-gone']);
    await h.startManager({ controllers: () => [deploymentController(), replicaSetController(), schedulerController({ platformVersion: '1.2.3' })] });
    h.sites.setNodes('re-paris', [siteNode('re-paris', 'n1')]);
    h.sites.setNodes('re-tokyo', [siteNode('re-tokyo', 'n1')]);
    h.sites.setNodes('ce-gone', [nodeWithReachability(siteNode('ce-gone', 'n1'), false, WENT_OFFLINE) ?? siteNode('ce-gone', 'n1')]);
  });
  after(() => h.stop());

  const podsOf = async (name: string, site: string): Promise<KubeObject[]> => (await h.list(h.pods)).filter((p) => p.metadata.labels?.app === name && p.metadata.labels['svc.io/siteName'] === site && isPodActive(p));
  const status = async (name: string): Promise<DeploymentStatusView> => statusOf<DeploymentStatusView>(await h.deployments.get(h.cluster, name));
  let offlineSite = 'ce-gone';
  /** Bound pods turn Ready, as their sites would report (not the offline site's: nobody reports there). */
  const readyBound = async (): Promise<void> => {
    for (const pod of await h.list(h.pods)) {
      if ((pod.spec as PodSpec).nodeName !== undefined && pod.metadata.labels?.['svc.io/siteName'] !== offlineSite && podConditionOf(pod, 'Ready')?.status !== 'True') await h.setPodStatus(pod.metadata.name ?? '', { phase: 'Running', ready: true });
    }
  };

  it('a new Deployment is Available over the reachable sites; the offline site\'s pod waits Pending and the site is named with since when', async () => {
    const object: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    h.deployments.strategy.defaults(object);
    await h.deployments.create(h.scope, object);
    await eventually('Available', async () => {
      await readyBound();
      return (await status('web')).conditions?.find((c) => c.type === 'Available')?.status === 'True';
    });
    const [pending] = await podsOf('web', 'ce-gone');
    assert.ok(pending !== undefined, 'the offline site gets its pod');
    await eventually('Pending with FailedScheduling', async () => podConditionOf((await podsOf('web', 'ce-gone'))[0] ?? pending, 'PodScheduled')?.reason === 'Unschedulable');
    assert.equal((pending.spec as PodSpec).nodeName, undefined);
    const s = await status('web');
    assert.deepEqual([s.replicas, s.availableReplicas, s.unavailableReplicas], [2, 2, 0], 'the reachable sites\' counts');
    const offline = s.conditions?.find((c) => c.type === 'SitesOffline');
    assert.deepEqual([offline?.status, offline?.reason], ['True', 'SitesUnreachable']);
    assert.match(offline?.message ?? '', /ce-gone \(offline since 2026-12-08T02:00:00Z\)/);
    assert.ok(h.events.recorded.some((e) => e.object === 'Deployment/web' && e.type === 'Warning' && e.reason === 'SiteOffline' && e.message.startsWith('Site ce-gone is offline since 2026-12-08T02:00:00Z')));
    const breakdown = JSON.parse((await h.deployments.get(h.cluster, 'web')).metadata.annotations?.['svc.io/site-status'] ?? '{}') as Record<string, { offlineSince?: string }>;
    assert.equal(breakdown['ce-gone']?.offlineSince, WENT_OFFLINE);
  });

  it('when the site returns its pod is bound, the same pod, and SitesOffline turns False with a SiteOnline event', async () => {
    const [before] = await podsOf('web', 'ce-gone');
    h.sites.setNodes('ce-gone', [siteNode('ce-gone', 'n1')]);
    offlineSite = '';
    await eventually('bound and counted', async () => {
      await readyBound();
      const s = await status('web');
      return s.availableReplicas === 3 && s.conditions?.find((c) => c.type === 'SitesOffline')?.status === 'False';
    });
    const [after] = await podsOf('web', 'ce-gone');
    assert.equal(after?.metadata.uid, before?.metadata.uid, 'nothing was recreated');
    assert.ok(h.events.recorded.some((e) => e.object === 'Deployment/web' && e.reason === 'SiteOnline' && e.message === `Site ce-gone is reachable again (offline since ${WENT_OFFLINE})`));
  });

  it('a rollout takes no pod away from an offline site: the old pod keeps running there until the site returns', async () => {
    h.sites.setNodes('ce-gone', [nodeWithReachability(siteNode('ce-gone', 'n1'), false, WENT_OFFLINE) ?? siteNode('ce-gone', 'n1')]);
    offlineSite = 'ce-gone';
    const [old] = await podsOf('web', 'ce-gone');
    // As the node lifecycle controller marks it: not ready (kube's rolling update would take such a pod first).
    await h.setPodStatus(old?.metadata.name ?? '', { phase: 'Running', ready: false });
    await h.deployments.update(h.scope, 'web', (live) => {
      const spec = live.spec as { template: { spec: PodSpec }; strategy: unknown };
      spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
      spec.template.spec.containers = [{ ...spec.template.spec.containers?.[0], name: 'web', image: 'nginx:2' }];
      return live;
    }, { retryOnConflict: true });
    await eventually('the reachable sites rolled out', async () => {
      await readyBound();
      const s = await status('web');
      return s.conditions?.find((c) => c.type === 'Progressing')?.reason === 'NewReplicaSetAvailable' && s.updatedReplicas === 2;
    });
    // One more sync of the Deployment, to be sure the offline site had its chance to shrink.
    await h.deployments.update(h.scope, 'web', (live) => ({ ...live, metadata: { ...live.metadata, labels: { touched: 'yes' } } }), { retryOnConflict: true });
    await eventually('synced', async () => (await h.deployments.get(h.cluster, 'web')).metadata.generation === (await status('web')).observedGeneration);
    const gone = await podsOf('web', 'ce-gone');
    assert.ok(gone.some((p) => p.metadata.uid === old?.metadata.uid), 'the old pod is still there, not deleted');
    assert.equal((await status('web')).conditions?.find((c) => c.type === 'Available')?.status, 'True');
  });
});
