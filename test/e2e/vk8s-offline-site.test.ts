import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { parseTable, type KubectlClient } from './support/kubectl-matrix.js';
import { startMultisiteEnv, type MultisiteEnv } from './support/multisite-env.js';
import { deploymentYaml, isReady, podsPath, type Pod } from './support/multisite-objects.js';
import { waitFor } from './support/wait-for.js';

type Condition = { type: string; status: string; reason?: string; message?: string };
type Deployment = KubeObject & { status?: { availableReplicas?: number; conditions?: Condition[] } };
type Event = KubeObject & { involvedObject: { name: string; kind: string }; reason?: string; message?: string; type?: string };

/** A Deployment on ce-1 whose pods tolerate the unreachable taint for `seconds` (kube's opt-in eviction). */
const tolerantYaml = (name: string, seconds: number): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
  annotations: {svc.io/sites: system/ce-1}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      tolerations: [{key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: ${seconds}}]
      containers: [{name: web, image: nginx:1.17}]
`;

/**
 * Issue 31, the controllers' side of an offline site, end to end: the real control plane,
 * simulated agents, real kubectl. The customer edge ce-1 loses its agent: a new Deployment is
 * Available on the reachable site while its ce-1 pod waits Pending (kube's FailedScheduling),
 * `kubectl describe` names the offline site and since when, pods are kept unless they opted
 * into eviction, and on return nothing is recreated.
 */
describe('an offline site through kubectl', () => {
  let env: MultisiteEnv;
  let c: KubectlClient;
  before(async () => {
    env = await startMultisiteEnv();
    c = env.clients[0] as KubectlClient;
  });
  after(async () => {
    await env?.close();
  });

  const podsOf = async (app: string): Promise<Pod[]> => env.list<Pod>(podsPath(`app=${app}`));
  const deployment = (name: string): Promise<Deployment | undefined> => env.read<Deployment>(`apis/apps/v1/namespaces/default/deployments/${name}`);
  const eventsAbout = async (name: string, reason: string): Promise<Event[]> =>
    (await env.json<{ items: Event[] }>(c, ['get', 'events', '--field-selector', `involvedObject.name=${name},reason=${reason}`])).items;
  let kept: Pod[] = [];

  it('before: workloads on ce-1 with and without opt-in eviction run', async () => {
    await env.apply(c, deploymentYaml('keep', { replicas: 1, annotations: { 'svc.io/sites': 'system/ce-1' } }));
    await env.apply(c, deploymentYaml('annotated', { replicas: 1, annotations: { 'svc.io/sites': 'system/ce-1', 'svc.io/offline-eviction-seconds': '4' } }));
    await env.apply(c, tolerantYaml('tolerant', 4));
    for (const app of ['keep', 'annotated', 'tolerant']) await env.settled(`app=${app}`, { 'ce-1': 1 });
    kept = await podsOf('keep');
    assert.ok(!(kept[0]?.spec as { tolerations?: unknown[] }).tolerations?.length, 'no admission adds kube\'s default unreachable tolerations');
  });

  it('ce-1 offline: a new Deployment is Available on re-a, its ce-1 pod Pending with FailedScheduling; describe names the site and since when', async () => {
    await env.stopSite('ce-1');
    await waitFor('ce-1-n0 NotReady', async () => (parseTable(await env.ok(c, ['get', 'nodes'])).find((r) => r['NAME'] === 'ce-1-n0')?.['STATUS'] === 'NotReady' ? true : undefined));
    const node = await env.json<KubeObject & { status: { conditions: Array<{ type: string; status: string; lastTransitionTime: string }> } }>(c, ['get', 'node', 'ce-1-n0']);
    const since = node.status.conditions.find((cond) => cond.type === 'Ready')?.lastTransitionTime ?? '';
    // Since when, as `kubectl describe node` would print it (the vK8s refuses describe's all-namespaces pod list: 405).
    const conditions = await env.ok(c, ['get', 'node', 'ce-1-n0', '-o', 'jsonpath={range .status.conditions[*]}{.type} {.status} {.reason} {.lastTransitionTime}{"\\n"}{end}']);
    assert.ok(conditions.includes(`Ready Unknown NodeStatusUnknown ${since}`), conditions);
    const taints = await env.ok(c, ['get', 'node', 'ce-1-n0', '-o', 'jsonpath={range .spec.taints[*]}{.key}:{.effect}{"\\n"}{end}']);
    assert.deepEqual(taints.trim().split('\n').sort(), ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule']);

    await env.apply(c, deploymentYaml('fresh', { replicas: 1, annotations: { 'svc.io/sites': 'svc-io-system/re-a, system/ce-1' } }));
    const message = "0/1 nodes are available: 1 node(s) had taint {node.kubernetes.io/unreachable: }, that the pod didn't tolerate.";
    const pending = await waitFor('the ce-1 pod of fresh Pending, unschedulable', async () => {
      const pod = (await podsOf('fresh')).find((p) => p.metadata.labels?.['svc.io/siteName'] === 'ce-1');
      return pod?.status?.conditions?.some((cond) => cond.type === 'PodScheduled' && cond.status === 'False' && cond.reason === 'Unschedulable') === true ? pod : undefined;
    });
    assert.deepEqual([pending.status?.phase, pending.spec.nodeName], ['Pending', undefined]);
    const failed = await waitFor('FailedScheduling', async () => {
      const events = await eventsAbout(pending.metadata.name ?? '', 'FailedScheduling');
      return events.length > 0 ? events : undefined;
    });
    assert.equal(failed[0]?.message, message);
    const available = await waitFor('fresh Available over re-a', async () => {
      const d = await deployment('fresh');
      return d?.status?.conditions?.find((cond) => cond.type === 'Available')?.status === 'True' ? d : undefined;
    });
    assert.equal(available.status?.availableReplicas, 1);
    const described = await waitFor('describe names ce-1', async () => {
      const text = await env.ok(c, ['describe', 'deployment', 'fresh']);
      return text.includes('SiteOffline') ? text : undefined;
    });
    assert.match(described, /SitesOffline\s+True\s+SitesUnreachable/);
    assert.match(described, /Available\s+True\s+MinimumReplicasAvailable/);
    assert.ok(described.includes(`Site ce-1 is offline since ${since}`), described);
  });

  it('pods of ce-1 are kept without opt-in; with tolerationSeconds (own or from svc.io/offline-eviction-seconds) they are deleted after it', async () => {
    for (const app of ['annotated', 'tolerant']) {
      const [pod] = (await podsOf(app)).filter((p) => p.spec.nodeName === 'ce-1-n0');
      await waitFor(`the ${app} pod marked for deletion`, async () => {
        const now = (await podsOf(app)).find((p) => p.metadata.uid === pod?.metadata.uid);
        return now === undefined || now.metadata.deletionTimestamp !== undefined ? true : undefined;
      });
      const events = await eventsAbout(pod?.metadata.name ?? '', 'TaintManagerEviction');
      assert.equal(events[0]?.message, `Marking for deletion Pod default/${pod?.metadata.name ?? ''}`);
      // Its replacement is made for the same site and waits there, Pending.
      await waitFor(`a Pending replacement for ${app} on ce-1`, async () =>
        (await podsOf(app)).some((p) => p.metadata.deletionTimestamp === undefined && p.metadata.uid !== pod?.metadata.uid && p.status?.phase === 'Pending' && p.spec.nodeName === undefined) ? true : undefined,
      );
    }
    const now = await podsOf('keep');
    assert.deepEqual(now.map((p) => [p.metadata.uid, p.metadata.deletionTimestamp]), kept.map((p) => [p.metadata.uid, undefined]), 'the pod without opt-in is kept');
    assert.deepEqual(await eventsAbout(kept[0]?.metadata.name ?? '', 'TaintManagerEviction'), []);
  });

  it('ce-1 back: the kept pod is the same pod, Ready again; the new pods are bound there; SitesOffline turns False', async () => {
    await env.restartSite('ce-1');
    await env.settled('app=keep', { 'ce-1': 1 });
    const back = await podsOf('keep');
    assert.deepEqual(back.map((p) => p.metadata.uid), kept.map((p) => p.metadata.uid), 'nothing recreated');
    await env.settled('app=fresh', { 'ce-1': 1, 're-a': 1 });
    for (const app of ['annotated', 'tolerant']) await env.settled(`app=${app}`, { 'ce-1': 1 });
    assert.ok((await podsOf('fresh')).every(isReady));
    await waitFor('SitesOffline False', async () =>
      (await deployment('fresh'))?.status?.conditions?.find((cond) => cond.type === 'SitesOffline')?.reason === 'AllSitesReachable' ? true : undefined,
    );
    assert.match(await env.ok(c, ['describe', 'deployment', 'fresh']), /SiteOnline\s+.*Site ce-1 is reachable again/);
  });
});
