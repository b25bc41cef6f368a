import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Toleration } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { nodeWithReachability } from '../../site-plane/site-lifecycle.js';
import { schedulerController } from '../scheduler/scheduler.js';
import { eventually, siteNode, startControllerWorld, type ControllerWorld } from '../testing/controller-harness.js';
import { taintEvictionController } from './taint-eviction-controller.js';
import { fakeClock } from '../../common/clock.js';

describe('taint eviction controller over a memory store', () => {
  let h: ControllerWorld;
  const started = new Date();
  const clock = fakeClock(started);

  before(async () => {
    h = await startControllerWorld({ clock });
    h.placement.place(['ce-lyon']);
    await h.startManager({ controllers: () => [schedulerController({ platformVersion: '1.2.3' }), taintEvictionController()] });
    h.sites.setNodes('ce-lyon', [siteNode('ce-lyon', 'n1')]);
  });
  after(() => h.stop());

  const pod = async (name: string, tolerations: Toleration[] = []): Promise<KubeObject> => {
    const object: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, labels: { 'svc.io/siteName': 'ce-lyon' } },
      spec: { containers: [{ name: 'c', image: 'nginx' }], tolerations },
    };
    h.pods.strategy.defaults(object);
    return h.pods.create(h.scope, object);
  };
  const exists = async (name: string): Promise<boolean> =>
    (await h.list(h.pods)).some((p) => p.metadata.name === name && p.metadata.deletionTimestamp === undefined);

  it('deletes only the pod whose unreachable toleration ran out, with kube\'s TaintManagerEviction event; the others stay', async () => {
    // (Time counts from the later of the taint and the controller's start: see planEviction.)
    await pod('plain');
    await pod('forever', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
    await pod('short', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }]);
    await pod('long', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 3600 }]);
    await eventually('all bound', async () => (await h.list(h.pods)).every((p) => (p.spec as { nodeName?: string }).nodeName === 'ce-lyon-n1'));
    assert.ok(!(await h.list(h.pods)).some((p) => ((p.spec as { tolerations?: Toleration[] }).tolerations ?? []).some((t) => t.tolerationSeconds === 300)), 'no admission adds kube\'s 300 s default tolerations');
    // Two minutes after the controller started, the Node shows the site offline since 10 s after its start.
    clock.advance(120_000);
    const since = new Date(started.getTime() + 10_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    h.sites.setNodes('ce-lyon', [nodeWithReachability(siteNode('ce-lyon', 'n1'), false, since) ?? siteNode('ce-lyon', 'n1')]);
    await eventually('the pod with 60 s is deleted', async () => !(await exists('short')));
    assert.ok(h.events.recorded.some((e) => e.object === 'Pod/short' && e.type === 'Normal' && e.reason === 'TaintManagerEviction' && e.message === 'Marking for deletion Pod default/short'));
    assert.deepEqual(await Promise.all(['plain', 'forever', 'long'].map(exists)), [true, true, true]);
    assert.ok(!h.events.recorded.some((e) => e.reason === 'TaintManagerEviction' && e.object !== 'Pod/short'));
  });

  it('takes svc.io/offline-eviction-seconds from the pod\'s workload, also when set while the site is offline', async () => {
    const rs = h.storeOf({ group: 'apps', resource: 'replicasets' });
    const workload: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web', labels: { 'svc.io/siteName': 'ce-lyon' } },
      spec: { replicas: 0, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    };
    rs.strategy.defaults(workload);
    const created = await rs.create(h.scope, workload);
    const object: KubeObject = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', labels: { 'svc.io/siteName': 'ce-lyon', app: 'web' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: created.metadata.uid ?? '', controller: true }] },
      spec: { nodeName: 'ce-lyon-n1', containers: [{ name: 'c', image: 'nginx' }] },
    };
    h.pods.strategy.defaults(object);
    await h.pods.create(h.scope, object);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(await exists('web-1'), true, 'kept without the annotation');
    await rs.update(h.scope, 'web', (live) => ({ ...live, metadata: { ...live.metadata, annotations: { 'svc.io/offline-eviction-seconds': '30' } } }), { retryOnConflict: true });
    await eventually('the annotated workload\'s pod is deleted', async () => !(await exists('web-1')));
    assert.ok(h.events.recorded.some((e) => e.object === 'Pod/web-1' && e.reason === 'TaintManagerEviction'));
  });
});
