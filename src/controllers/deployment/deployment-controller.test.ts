import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DeploymentSpec, ReplicaSetSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf, statusOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { replicaSetController } from '../replicaset/replica-set-controller.js';
import { isPodActive } from '../runtime/pod-state.js';
import { eventually, site, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import { deploymentController } from './deployment-controller.js';
import type { DeploymentStatusView } from './deployment-status.js';

const SITES = ['ce-lyon', 're-paris', 're-tokyo'];

function deployment(name: string, replicas: number, image = 'nginx:1.19'): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image }] } } },
  };
}

describe('deployment controller over a memory store, three sites', () => {
  let h: ControllerWorld;

  before(async () => {
    h = await startControllerWorld();
    h.placement.place(SITES);
    await h.startManager({ controllers: () => [deploymentController(), replicaSetController()] });
  });
  after(() => h.stop());

  const create = async (object: KubeObject): Promise<KubeObject> => {
    h.deployments.strategy.defaults(object);
    return h.deployments.create(h.scope, object);
  };
  const update = (name: string, change: (spec: DeploymentSpec) => void): Promise<KubeObject> =>
    h.deployments.update(
      h.scope,
      name,
      (live) => {
        change(specOf<DeploymentSpec>(live));
        return live;
      },
      { retryOnConflict: true },
    );
  const replicaSetsOf = async (name: string): Promise<KubeObject[]> => (await h.list(h.replicaSets)).filter((rs) => rs.metadata.ownerReferences?.[0]?.name === name);
  const activePodsOf = async (name: string): Promise<KubeObject[]> => (await h.list(h.pods)).filter((p) => p.metadata.labels?.app === name && isPodActive(p));
  const status = async (name: string): Promise<DeploymentStatusView & { generation: number }> => {
    const d = await h.deployments.get(h.cluster, name);
    return { ...statusOf<DeploymentStatusView>(d), generation: d.metadata.generation ?? 0 };
  };
  /** Makes pods ready as sites would, until `done` holds. */
  const rollUntil = (what: string, done: () => Promise<boolean>): Promise<void> =>
    eventually(what, async () => {
      await h.readyPods();
      return done();
    });
  const complete = (name: string, total: number) => async (): Promise<boolean> => {
    const s = await status(name);
    return s.observedGeneration === s.generation && s.replicas === total && s.updatedReplicas === total && s.availableReplicas === total;
  };

  it('deployment controller runs replicas per site: one ReplicaSet per site, 2 pods on each, status summed', async () => {
    const web = await create(deployment('web', 2));
    await eventually('3 replica sets and 6 pods', async () => (await replicaSetsOf('web')).length === 3 && (await activePodsOf('web')).length === 6);
    await eventually('one of them, on the first site, is controlled by the Deployment', async () => (await replicaSetsOf('web')).some((rs) => rs.metadata.ownerReferences?.[0]?.controller === true));
    const rss = await replicaSetsOf('web');
    assert.deepEqual(rss.map((rs) => rs.metadata.labels?.['svc.io/siteName']).sort(), SITES);
    for (const rs of rss) {
      const hash = rs.metadata.labels?.['pod-template-hash'] ?? '';
      assert.match(hash, /^[bcdfghjklmnpqrstvwxz2456789]{10}$/);
      assert.equal(rs.metadata.name, `web-${hash}`);
      assert.deepEqual(specOf<ReplicaSetSpec>(rs).selector, { matchLabels: { app: 'web', 'pod-template-hash': hash } });
      const primary = rs.metadata.labels?.['svc.io/siteName'] === 'ce-lyon';
      assert.deepEqual(rs.metadata.ownerReferences, [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: web.metadata.uid, controller: primary, blockOwnerDeletion: true }]);
      assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
      assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/desired-replicas'], '2');
      assert.equal(rs.metadata.annotations?.['deployment.kubernetes.io/max-replicas'], '3');
    }
    const pods = await activePodsOf('web');
    for (const site of SITES) assert.equal(pods.filter((p) => p.metadata.labels?.['svc.io/siteName'] === site).length, 2, `2 pods on ${site}`);
    for (const pod of pods) assert.match(pod.metadata.name ?? '', new RegExp(`^${pod.metadata.ownerReferences?.[0]?.name ?? ''}-[a-z0-9]{5}$`));

    await rollUntil('the deployment completes', complete('web', 6));
    const done = await h.deployments.get(h.cluster, 'web');
    const s = statusOf<DeploymentStatusView>(done);
    assert.equal(s.readyReplicas, 6);
    assert.equal(s.unavailableReplicas, 0);
    assert.deepEqual(s.conditions?.map((c) => [c.type, c.status, c.reason]), [
      ['Available', 'True', 'MinimumReplicasAvailable'],
      ['Progressing', 'True', 'NewReplicaSetAvailable'],
    ]);
    assert.equal(done.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
    assert.equal(done.metadata.generation, 1, 'status and annotations written through /status do not bump the generation');
    const perSite = JSON.parse(done.metadata.annotations?.['svc.io/site-status'] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(perSite), SITES);
    assert.deepEqual(perSite['re-paris'], { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });
    assert.ok(h.events.recorded.some((e) => e.object === 'Deployment/web' && e.reason === 'ScalingReplicaSet' && /^Scaled up replica set web-\w{10} to 2$/.test(e.message)));
    assert.ok(h.events.recorded.some((e) => e.reason === 'SuccessfulCreate' && /^Created pod: web-\w{10}-\w{5}$/.test(e.message)));
  });

  it('deployment controller scales every site', async () => {
    await update('web', (spec) => (spec.replicas = 3));
    await rollUntil('9 pods', complete('web', 9));
    assert.equal((await activePodsOf('web')).length, 9);
    await update('web', (spec) => (spec.replicas = 1));
    await rollUntil('3 pods', async () => (await complete('web', 3)()) && (await activePodsOf('web')).length === 3);
    assert.ok(h.events.recorded.some((e) => e.reason === 'ScalingReplicaSet' && /^Scaled down replica set web-\w{10} to 1$/.test(e.message)));
    assert.ok(h.events.recorded.some((e) => e.reason === 'SuccessfulDelete'));
  });

  it('deployment controller rolls a template change out per site, keeping the old ReplicaSets at 0 with their revision', async () => {
    await update('web', (spec) => (spec.replicas = 2));
    await rollUntil('back to 2 per site', complete('web', 6));
    const before = await replicaSetsOf('web');
    await update('web', (spec) => {
      const container = spec.template?.spec?.containers?.[0];
      if (container !== undefined) container.image = 'nginx:1.20';
    });
    await rollUntil('the new template is rolled out', complete('web', 6));
    const after = await replicaSetsOf('web');
    assert.equal(after.length, 6, 'a new ReplicaSet per site beside the old one');
    const olds = after.filter((rs) => before.some((b) => b.metadata.uid === rs.metadata.uid));
    const news = after.filter((rs) => !olds.includes(rs));
    assert.deepEqual(olds.map((rs) => [specOf<ReplicaSetSpec>(rs).replicas, rs.metadata.annotations?.['deployment.kubernetes.io/revision']]), [[0, '1'], [0, '1'], [0, '1']]);
    assert.deepEqual(news.map((rs) => [specOf<ReplicaSetSpec>(rs).replicas, rs.metadata.annotations?.['deployment.kubernetes.io/revision']]), [[2, '2'], [2, '2'], [2, '2']]);
    for (const pod of await activePodsOf('web')) assert.equal(specOf<{ containers: Array<{ image: string }> }>(pod).containers[0]?.image, 'nginx:1.20');
    const controlled = after.filter((rs) => rs.metadata.ownerReferences?.[0]?.controller === true);
    assert.deepEqual(controlled.map((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision']).sort(), ['1', '2'], 'one controlled ReplicaSet per revision, for kubectl');
    assert.equal((await h.deployments.get(h.cluster, 'web')).metadata.annotations?.['deployment.kubernetes.io/revision'], '2');
  });

  it('deployment controller does not roll out while paused, and does on resume', async () => {
    await update('web', (spec) => {
      spec.paused = true;
      const container = spec.template?.spec?.containers?.[0];
      if (container !== undefined) container.image = 'nginx:1.21';
    });
    await eventually('the pause is observed', async () => (await status('web')).conditions?.find((c) => c.type === 'Progressing')?.reason === 'DeploymentPaused');
    assert.equal((await replicaSetsOf('web')).length, 6, 'no new ReplicaSet while paused');
    await update('web', (spec) => (spec.paused = false));
    await rollUntil('the resumed rollout completes', async () => (await complete('web', 6)()) && (await replicaSetsOf('web')).length === 9);
  });

  it('deployment controller removes a site that left the placement: its ReplicaSets drain and go', async () => {
    h.placement.place(['re-paris', 're-tokyo']);
    await rollUntil('the site lost its ReplicaSets', async () => (await replicaSetsOf('web')).every((rs) => rs.metadata.labels?.['svc.io/siteName'] !== 'ce-lyon') && (await complete('web', 4)()));
    assert.equal((await activePodsOf('web')).filter((p) => p.metadata.labels?.['svc.io/siteName'] === 'ce-lyon').length, 0);
    assert.equal((await activePodsOf('web')).length, 4);
    const perSite = JSON.parse((await h.deployments.get(h.cluster, 'web')).metadata.annotations?.['svc.io/site-status'] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(perSite), ['re-paris', 're-tokyo']);
    h.placement.place(SITES);
    await rollUntil('the site is back', complete('web', 6));
  });

  it('deployment controller with Recreate stops every old pod before starting new ones', async () => {
    const recreate = deployment('batch', 1);
    (recreate.spec as DeploymentSpec).strategy = { type: 'Recreate' };
    await create(recreate);
    await rollUntil('first version runs', complete('batch', 3));
    await update('batch', (spec) => {
      const container = spec.template?.spec?.containers?.[0];
      if (container !== undefined) container.image = 'nginx:1.20';
    });
    await rollUntil('second version runs', complete('batch', 3));
    const images = (await activePodsOf('batch')).map((p) => specOf<{ containers: Array<{ image: string }> }>(p).containers[0]?.image);
    assert.deepEqual(images, ['nginx:1.20', 'nginx:1.20', 'nginx:1.20']);
  });
  const placedCondition = async (name: string): Promise<[string, string, string] | undefined> => {
    const c = (await status(name)).conditions?.find((x) => x.type === 'Placed');
    return c === undefined ? undefined : [c.status, c.reason ?? '', c.message ?? ''];
  };
  const podsBySite = async (name: string): Promise<string[]> => (await activePodsOf(name)).map((p) => `${p.metadata.labels?.['svc.io/siteName'] ?? ''}/${p.metadata.name ?? ''}`).sort();
  const UNRESOLVED = 'annotation svc.io/sites (system/nope) resolves to no site: the workload stays on the sites it runs on until its placement resolves';

  it('deployment controller keeps a Deployment whose placement resolves to no site where it runs (Placed False), and moves it once it resolves', async () => {
    h.placement.placeObject('kept', [site('re-paris')]);
    await create(deployment('kept', 2));
    await rollUntil('it runs on re-paris', complete('kept', 2));
    assert.equal(await placedCondition('kept'), undefined, 'no Placed condition while the placement has always resolved');
    const running = await podsBySite('kept');

    h.placement.unresolveObject('kept', UNRESOLVED);
    await eventually('Placed is False', async () => (await placedCondition('kept'))?.[0] === 'False');
    assert.deepEqual(await placedCondition('kept'), ['False', 'NoSiteMatches', UNRESOLVED]);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(await podsBySite('kept'), running, 'the pods stay');
    assert.deepEqual((await replicaSetsOf('kept')).map((rs) => [rs.metadata.labels?.['svc.io/siteName'], specOf<ReplicaSetSpec>(rs).replicas]), [['re-paris', 2]]);
    assert.equal((await status('kept')).availableReplicas, 2);
    await update('kept', (spec) => (spec.replicas = 3));
    await rollUntil('a scale-up still reaches the site it stays on', complete('kept', 3));

    h.placement.placeObject('kept', [site('re-tokyo')]);
    await rollUntil('it moved to re-tokyo', async () => (await complete('kept', 3)()) && (await podsBySite('kept')).every((p) => p.startsWith('re-tokyo/')));
    await eventually('Placed is True', async () => (await placedCondition('kept'))?.[0] === 'True');
    assert.deepEqual((await placedCondition('kept'))?.slice(0, 2), ['True', 'SitesMatched']);
  });

  it('deployment controller places a new Deployment whose placement resolves to no site nowhere, with Placed False', async () => {
    h.placement.unresolveObject('fresh', UNRESOLVED);
    await create(deployment('fresh', 1));
    await eventually('Placed is False', async () => (await placedCondition('fresh'))?.[1] === 'NoSiteMatches');
    assert.deepEqual(await replicaSetsOf('fresh'), []);
    assert.deepEqual(await activePodsOf('fresh'), []);
  });
});
