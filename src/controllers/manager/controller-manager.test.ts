import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Registry } from 'prom-client';
import type { DeploymentSpec } from '../../vk8s/kinds/workload-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { deploymentController } from '../deployment/deployment-controller.js';
import { replicaSetController } from '../replicaset/replica-set-controller.js';
import { isPodActive } from '../runtime/pod-state.js';
import { eventually, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import type { ControllerManager } from './controller-manager.js';
import type { ControllerStarter } from './controller-context.js';
import { controllerMetrics } from './controller-metrics.js';

describe('controller manager with two replicas over one store', () => {
  let h: ControllerWorld;
  let manager: ControllerManager;
  const controllers = (): ControllerStarter[] => [deploymentController(), replicaSetController()];

  before(async () => {
    h = await startControllerWorld();
    h.placement.place(['re-paris', 're-tokyo']);
    manager = await h.startManager({ controllers });
  });
  after(() => h.stop());

  const activePods = async (): Promise<number> => (await h.list(h.pods)).filter(isPodActive).length;

  it('controller manager runs the controllers only in the leader and hands over when it stops', async () => {
    await eventually('the first manager leads', () => manager.isLeader);
    const standby = await h.startManager({ controllers, identity: 'replica-b' });
    const web: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } },
    };
    h.deployments.strategy.defaults(web);
    await h.deployments.create(h.scope, web);
    await eventually('the leader made a pod per site', async () => (await activePods()) === 2);
    assert.equal(standby.isLeader, false);

    await manager.stop();
    await eventually('the standby takes over', () => standby.isLeader);
    await h.deployments.update(h.scope, 'web', (live) => ({ ...live, spec: { ...specOf<DeploymentSpec>(live), replicas: 3 } }), { retryOnConflict: true });
    await eventually('the new leader scales every site', async () => (await activePods()) === 6);
    assert.equal(manager.isLeader, false);
  });

  it('controller metrics count reconciles and report the queue depth and leadership', async () => {
    const registry = new Registry();
    const metrics = controllerMetrics(registry);
    metrics.setLeader(true);
    metrics.reconciled('deployment', 'success');
    const stop = metrics.watchQueue('deployment', () => 7);
    const text = await registry.metrics();
    assert.match(text, /edgeplane_controller_reconciles_total\{controller="deployment",result="success"\} 1/);
    assert.match(text, /edgeplane_controller_queue_depth\{controller="deployment"\} 7/);
    assert.match(text, /edgeplane_controller_manager_leader 1/);
    stop();
    assert.doesNotMatch(await registry.metrics(), /queue_depth\{controller="deployment"\}/);
  });
});
