import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { podConditionOf } from '../runtime/pod-state.js';
import { eventually, siteNode, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import { schedulerController } from './scheduler.js';
import { nodeWithReachability } from '../../site-plane/site-lifecycle.js';

describe('scheduler over a memory store', () => {
  let h: ControllerWorld;

  before(async () => {
    h = await startControllerWorld();
    h.placement.place(['re-paris', 'ce-lyon']);
    await h.startManager({ controllers: () => [schedulerController({ platformVersion: '1.2.3' })] });
    h.sites.setNodes('ce-lyon', [siteNode('ce-lyon', 'n1', '1', '2Gi'), siteNode('ce-lyon', 'n2', '1', '2Gi'), siteNode('ce-lyon', 'n3', '1', '2Gi')]);
    h.sites.setNodes('re-paris', [siteNode('re-paris', 'n1', '8', '16Gi'), siteNode('re-paris', 'n2', '8', '16Gi', false)]);
  });
  after(() => h.stop());

  const pod = async (name: string, site: string, cpu: string, memory = '64Mi'): Promise<KubeObject> => {
    const object: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { 'svc.io/siteName': site } },
      spec: { containers: [{ name: 'c', image: 'nginx', resources: { limits: { cpu, memory } } }] },
    };
    h.pods.strategy.defaults(object);
    return h.pods.create(h.scope, object);
  };
  const nodeOf = async (name: string): Promise<string> => specOf<PodSpec>(await h.pods.get(h.cluster, name)).nodeName ?? '';

  it('scheduler binds a pod to a ready node of its site, with PodScheduled and a Scheduled event', async () => {
    await pod('small', 're-paris', '500m');
    await eventually('the pod is bound', async () => (await nodeOf('small')) !== '');
    assert.equal(await nodeOf('small'), 're-paris-n1', 'the not-ready node is never chosen');
    const bound = await h.pods.get(h.cluster, 'small');
    assert.equal(podConditionOf(bound, 'PodScheduled')?.status, 'True');
    assert.ok(h.events.recorded.some((e) => e.object === 'Pod/small' && e.type === 'Normal' && e.reason === 'Scheduled' && e.message === 'Successfully assigned default/small to re-paris-n1'));
  });

  it('scheduler fills the nodes of a site and leaves what fits nowhere Pending with FailedScheduling', async () => {
    await Promise.all(['a', 'b', 'c'].map((n) => pod(`fill-${n}`, 'ce-lyon', '600m')));
    await eventually('three pods bound', async () => (await Promise.all(['a', 'b', 'c'].map((n) => nodeOf(`fill-${n}`)))).every((node) => node !== ''));
    const nodes = await Promise.all(['a', 'b', 'c'].map((n) => nodeOf(`fill-${n}`)));
    assert.deepEqual(nodes.sort(), ['ce-lyon-n1', 'ce-lyon-n2', 'ce-lyon-n3'], 'one per node: 600m of 1 CPU each');
    await pod('too-big', 'ce-lyon', '600m');
    const message = '0/3 nodes are available: 3 Insufficient cpu.';
    await eventually('the pod is unschedulable', async () => podConditionOf(await h.pods.get(h.cluster, 'too-big'), 'PodScheduled')?.reason === 'Unschedulable');
    const pending = await h.pods.get(h.cluster, 'too-big');
    assert.deepEqual(
      [podConditionOf(pending, 'PodScheduled')?.status, podConditionOf(pending, 'PodScheduled')?.message, (pending.status as { phase: string }).phase, await nodeOf('too-big')],
      ['False', message, 'Pending', ''],
    );
    assert.ok(h.events.recorded.some((e) => e.object === 'Pod/too-big' && e.type === 'Warning' && e.reason === 'FailedScheduling' && e.message === message));
  });

  it('scheduler tries again when a pod of the site goes or its nodes change', async () => {
    await h.pods.delete(h.scope, 'fill-a', { gracePeriodSeconds: 0 });
    await eventually('the pending pod takes the freed node', async () => (await nodeOf('too-big')) !== '');
    await pod('bigger', 'ce-lyon', '2');
    await eventually('it waits', async () => podConditionOf(await h.pods.get(h.cluster, 'bigger'), 'PodScheduled')?.status === 'False');
    h.sites.setNodes('ce-lyon', [...h.sites.nodesOf('ce-lyon'), siteNode('ce-lyon', 'n4', '4', '8Gi')]);
    await eventually('a new node takes it', async () => (await nodeOf('bigger')) === 'ce-lyon-n4');
  });

  it('scheduler injects the sidecar into pods bound on a runc site, its requests counting in the fit', async () => {
    h.sites.setNodes('ce-runc', [siteNode('ce-runc', 'n1', '1', '2Gi')]);
    h.sites.setRuntime('ce-runc', 'runc');
    await pod('runc-a', 'ce-runc', '500m');
    await eventually('the pod is bound', async () => (await nodeOf('runc-a')) !== '');
    const bound = await h.pods.get(h.cluster, 'runc-a');
    assert.deepEqual(specOf<PodSpec>(bound).containers?.map((c) => [c.name, c.image]), [['c', 'nginx'], ['edgeplane-sidecar', 'edgeplane/sidecar:1.2.3']]);
    assert.equal(bound.metadata.annotations?.['svc.io/sidecar-injected'], 'true');
    assert.equal(podConditionOf(bound, 'PodScheduled')?.status, 'True');
    // 500m + 490m fit in 1 CPU; with the sidecar's 10m each they do not.
    await pod('runc-b', 'ce-runc', '490m');
    await eventually('the second pod is unschedulable', async () => podConditionOf(await h.pods.get(h.cluster, 'runc-b'), 'PodScheduled')?.reason === 'Unschedulable');
    assert.equal(podConditionOf(await h.pods.get(h.cluster, 'runc-b'), 'PodScheduled')?.message, '0/1 nodes are available: 1 Insufficient cpu.');
    assert.equal(specOf<PodSpec>(await h.pods.get(h.cluster, 'runc-b')).containers?.length, 1, 'an unbound pod is not injected');
    const simulated = await h.pods.get(h.cluster, 'small');
    assert.deepEqual([specOf<PodSpec>(simulated).containers?.length, simulated.metadata.annotations?.['svc.io/sidecar-injected']], [1, undefined], 'a simulated site\'s pod is not injected');
  });

  it('scheduler counts the injected sidecar\'s limits in a regional-edge quota', async () => {
    h.sites.setNodes('re-runc', [siteNode('re-runc', 'n1', '8', '16Gi')]);
    h.sites.setRuntime('re-runc', 'runc');
    h.sites.setQuota('re-runc', { cpuMillis: 8000, memoryBytes: 300 * 2 ** 20 });
    await pod('rq-a', 're-runc', '100m', '128Mi');
    await eventually('bound within the quota', async () => (await nodeOf('rq-a')) !== '');
    // 128Mi + 4Mi fit in 300Mi; with the sidecar's 160Mi limit each they do not.
    await pod('rq-b', 're-runc', '100m', '4Mi');
    await eventually('refused by the quota', async () => podConditionOf(await h.pods.get(h.cluster, 'rq-b'), 'PodScheduled')?.reason === 'Unschedulable');
    assert.match(podConditionOf(await h.pods.get(h.cluster, 'rq-b'), 'PodScheduled')?.message ?? '', /quota of virtual_k8s default\/vk1 on site re-runc is reached \(memory: the pod's limits need 164Mi, 288Mi of 300Mi in use\)/);
  });

  it('scheduler keeps a vK8s within its quota on a regional-edge site', async () => {
    h.sites.setQuota('re-paris', { cpuMillis: 1500, memoryBytes: 4 * 2 ** 30 });
    await pod('quota-a', 're-paris', '800m');
    await eventually('bound within the quota', async () => (await nodeOf('quota-a')) !== '');
    await pod('quota-b', 're-paris', '800m');
    await eventually('refused by the quota', async () => podConditionOf(await h.pods.get(h.cluster, 'quota-b'), 'PodScheduled')?.reason === 'Unschedulable');
    const message = podConditionOf(await h.pods.get(h.cluster, 'quota-b'), 'PodScheduled')?.message ?? '';
    assert.equal(message, "the quota of virtual_k8s default/vk1 on site re-paris is reached (cpu: the pod's limits need 800m, 1300m of 1500m in use)");
    assert.ok(h.events.recorded.some((e) => e.object === 'Pod/quota-b' && e.reason === 'FailedScheduling' && e.message === message));
  });

  it('scheduler leaves a pod of an offline site Pending with kube\'s taint message, and binds it when the site returns', async () => {
    const offline = (name: string): KubeObject => nodeWithReachability(siteNode('ce-gone', name), false, '2026-12-08T02:00:00Z') ?? siteNode('ce-gone', name);
    h.sites.setNodes('ce-gone', [offline('n1'), offline('n2')]);
    await pod('gone-a', 'ce-gone', '100m');
    const message = "0/2 nodes are available: 2 node(s) had taint {node.kubernetes.io/unreachable: }, that the pod didn't tolerate.";
    await eventually('the pod is unschedulable', async () => podConditionOf(await h.pods.get(h.cluster, 'gone-a'), 'PodScheduled')?.reason === 'Unschedulable');
    const pending = await h.pods.get(h.cluster, 'gone-a');
    assert.deepEqual([podConditionOf(pending, 'PodScheduled')?.status, podConditionOf(pending, 'PodScheduled')?.message, await nodeOf('gone-a')], ['False', message, '']);
    assert.ok(h.events.recorded.some((e) => e.object === 'Pod/gone-a' && e.type === 'Warning' && e.reason === 'FailedScheduling' && e.message === message));
    h.sites.setNodes('ce-gone', [siteNode('ce-gone', 'n1'), siteNode('ce-gone', 'n2')]);
    await eventually('bound once the site is back', async () => (await nodeOf('gone-a')) !== '');
  });
});
