import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { parseTable, type KubectlClient } from './support/kubectl-matrix.js';
import { startMultisiteEnv, type MultisiteEnv } from './support/multisite-env.js';
import { countBySite, deploymentYaml, isReady, podsPath, type Pod } from './support/multisite-objects.js';
import { waitFor } from './support/wait-for.js';

type Endpoints = KubeObject & {
  subsets?: Array<{ addresses?: Address[]; notReadyAddresses?: Address[]; ports?: unknown[] }>;
};
interface Address {
  ip: string;
  nodeName?: string;
  targetRef?: { kind: string; namespace: string; name: string };
}

const SERVICE = `apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: 80}]
`;

type Deployment = KubeObject & { spec: { replicas: number }; status?: Record<string, number | undefined> };

/**
 * Issue 5 end to end: the real control plane, three sites joined through the site API by
 * simulated agents (regional edges re-a/eu and re-b/us with a quota, customer edge ce-1),
 * driven with real kubectl and the configuration API.
 */
describe('vK8s across three sites through kubectl', () => {
  let env: MultisiteEnv;
  before(async () => {
    env = await startMultisiteEnv();
  });
  after(async () => {
    await env?.close();
  });

  it('a Deployment over the vK8s default lands 2 pods on each regional edge, on the site\'s node, summed in its status', async () => {
    await env.apply(env.kubectl, deploymentYaml('web'));
    await env.settled('app=web', { 're-a': 2, 're-b': 2 });
    const deployment = await waitFor('the Deployment status summed over sites', async () => {
      const d = await env.read<Deployment>('apis/apps/v1/namespaces/default/deployments/web');
      return d?.status?.['availableReplicas'] === 4 ? d : undefined;
    });
    assert.equal(deployment.spec.replicas, 2);
    assert.deepEqual(
      { replicas: deployment.status?.['replicas'], updated: deployment.status?.['updatedReplicas'], ready: deployment.status?.['readyReplicas'], available: deployment.status?.['availableReplicas'] },
      { replicas: 4, updated: 4, ready: 4, available: 4 },
    );
    assert.deepEqual(JSON.parse(deployment.metadata.annotations?.['svc.io/site-status'] ?? '{}'), {
      're-a': { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
      're-b': { replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
    });
    // The virtual cluster's own breakdown: its virtual_k8s object's status, through the config API.
    const breakdown = await waitFor('the virtual_k8s status counts 4 ready pods on two sites', async () => {
      const answer = await env.h.call('GET', '/api/config/namespaces/default/virtual_k8ss/vk1');
      const entry = answer.json<{ status: Array<Record<string, unknown>> }>().status.find((e) => e['per_site'] !== undefined);
      return entry?.['ready'] === 4 ? entry : undefined;
    });
    assert.deepEqual(breakdown, {
      pods: 4,
      ready: 4,
      sites: 2,
      per_site: { 're-a': { pods: 2, ready: 2, pending: 0, failed: 0 }, 're-b': { pods: 2, ready: 2, pending: 0, failed: 0 } },
    });
    for (const c of env.clients) {
      const rows = parseTable(await env.ok(c, ['get', 'pods', '-l', 'app=web', '-o', 'wide']));
      assert.deepEqual(rows.map((r) => [r['NODE'], r['STATUS'], r['READY']]).sort(), [
        ['re-a-n0', 'Running', '1/1'],
        ['re-a-n0', 'Running', '1/1'],
        ['re-b-n0', 'Running', '1/1'],
        ['re-b-n0', 'Running', '1/1'],
      ], c.label);
      const share = await env.ok(c, ['get', 'pods', '-l', 'app=web,svc.io/siteName=re-a', '-o', 'jsonpath={range .items[*]}{.spec.nodeName}{"\\n"}{end}']);
      assert.deepEqual(share.trim().split('\n'), ['re-a-n0', 're-a-n0'], c.label);
      const table = parseTable(await env.ok(c, ['get', 'deployment', 'web']));
      assert.deepEqual([table[0]?.['READY'], table[0]?.['UP-TO-DATE'], table[0]?.['AVAILABLE']], ['4/2', '4', '4'], c.label);
    }
  });

  /**
   * The revisions `kubectl rollout history` lists. kubectl reads them from the ReplicaSets the
   * Deployment controls: one per revision (the other sites' twins name it as a non-controller
   * owner; docs/controllers.md), so each revision is listed once.
   */
  const revisions = async (c: KubectlClient, name: string): Promise<string[]> => {
    const out = await env.ok(c, ['rollout', 'history', `deployment/${name}`]);
    const rows = parseTable(out.split('\n').slice(1).join('\n')).map((r) => r['REVISION'] ?? '');
    assert.ok(rows.every((r) => /^[1-9]\d*$/.test(r)), out);
    return rows;
  };

  it('kubectl logs -l reaches the pods of every site through their tunnels (simulated sites generate lines); exec is refused naming the site', async () => {
    for (const c of env.clients) {
      const out = await env.ok(c, ['logs', '-l', 'app=web', '--prefix', '--tail=1']);
      const lines = out.trim().split('\n');
      assert.equal(lines.length, 4, `${c.label}: ${out}`);
      for (const line of lines) assert.match(line, /^\[pod\/web-[a-z0-9-]+\/[a-z0-9-]+\] .*simulated log line \d+$/, c.label);
      assert.equal(new Set(lines.map((l) => l.split(' ')[0])).size, 4, `${c.label}: one line from each pod`);
      const pod = lines[0]?.split('/')[1] ?? '';
      const exec = await env.run(c, ['exec', pod, '--', 'true']);
      assert.notEqual(exec.status, 0);
      assert.match(exec.stderr, /exec is not available on simulated site "re-[ab]": its pods are simulated; run the site with --runtime runc/, c.label);
    }
  });

  it('svc.io/virtual-sites overrides the default, svc.io/sites overrides both; a site that does not exist keeps the Deployment where it runs (Warning events, Placed False) until the annotation resolves again', async () => {
    const c = env.kubectl;
    await env.apply(c, deploymentYaml('pin', { annotations: { 'svc.io/virtual-sites': 'default/eu' } }));
    await env.settled('app=pin', { 're-a': 2 });
    await env.ok(c, ['annotate', 'deployment', 'pin', 'svc.io/sites=system/ce-1']);
    const running = (await env.settled('app=pin', { 'ce-1': 2 })).map((p) => p.metadata.name).sort();
    const placedCondition = async (): Promise<string> =>
      (await env.ok(c, ['get', 'deployment', 'pin', '-o', 'jsonpath={.status.conditions[?(@.type=="Placed")].status}/{.status.conditions[?(@.type=="Placed")].reason}'])).trim();
    assert.equal(await placedCondition(), '/', 'no Placed condition while the placement has always resolved');

    // A typo in a well-formed annotation: the pods stay where they run.
    await env.ok(c, ['annotate', 'deployment', 'pin', '--overwrite', 'svc.io/sites=svc-io-system/nowhere']);
    const warnings = await waitFor('FailedPlacement and PlacementUnresolved events about pin', async () => {
      const rows = parseTable(await env.ok(c, ['get', 'events', '--field-selector', 'involvedObject.name=pin,type=Warning', '--sort-by=.metadata.creationTimestamp']));
      return rows.some((r) => r['REASON'] === 'PlacementUnresolved') && rows.some((r) => r['REASON'] === 'FailedPlacement') ? rows : undefined;
    });
    assert.match(warnings.find((r) => r['REASON'] === 'FailedPlacement')?.['MESSAGE'] ?? '', /svc-io-system\/nowhere.*does not exist/);
    assert.match(warnings.find((r) => r['REASON'] === 'PlacementUnresolved')?.['MESSAGE'] ?? '', /svc\.io\/sites \(svc-io-system\/nowhere\) resolves to no site: the workload stays on the sites it runs on/);
    await waitFor('Placed False', async () => ((await placedCondition()) === 'False/NoSiteMatches' ? true : undefined), { describe: placedCondition });
    const described = await env.ok(c, ['describe', 'deployment', 'pin']);
    assert.match(described, /Placed\s+False\s+NoSiteMatches/);
    assert.match(described, /Warning\s+PlacementUnresolved/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.deepEqual((await env.settled('app=pin', { 'ce-1': 2 })).map((p) => p.metadata.name).sort(), running, 'the same pods still run on ce-1');
    const table = parseTable(await env.ok(c, ['get', 'deployment', 'pin']));
    assert.deepEqual(table.map((r) => [r['NAME'], r['READY']]), [['pin', '2/2']]);

    // Fixed: the placement resolves and the Deployment moves.
    await env.ok(c, ['annotate', 'deployment', 'pin', '--overwrite', 'svc.io/sites=svc-io-system/re-a']);
    await env.settled('app=pin', { 're-a': 2 });
    await waitFor('Placed True', async () => ((await placedCondition()) === 'True/SitesMatched' ? true : undefined), { describe: placedCondition });
    await env.ok(c, ['delete', 'deployment', 'pin', '--wait=false']);
  });

  it('relabelling a site through the config API moves a workload placed by a label-selecting virtual site', async () => {
    const c = env.kubectl;
    await env.apply(c, deploymentYaml('mover', { replicas: 1, annotations: { 'svc.io/virtual-sites': 'default/eu' } }));
    await env.settled('app=mover', { 're-a': 1 });
    await env.relabel('re-b', (labels) => (labels['svc.io/region'] = 'eu'));
    await env.relabel('re-a', (labels) => (labels['svc.io/region'] = 'us'));
    await env.settled('app=mover', { 're-b': 1 });
    assert.equal((await env.site('re-b')).metadata.labels['svc.io/region'], 'eu');
    await waitFor('the ReplicaSet of re-a drained and gone', async () => {
      const rows = parseTable(await env.ok(c, ['get', 'rs', '-l', 'app=mover', '-L', 'svc.io/siteName']));
      return rows.length === 1 && rows[0]?.['SITENAME'] === 're-b' ? true : undefined;
    });
    // re-a's ReplicaSet held revision 1 for kubectl; re-b's holds it now.
    await waitFor('revision 1 held by the ReplicaSet left', async () => (JSON.stringify(await revisions(c, 'mover')) === '["1"]' ? true : undefined));
    await env.relabel('re-a', (labels) => (labels['svc.io/region'] = 'eu'));
    await env.relabel('re-b', (labels) => (labels['svc.io/region'] = 'us'));
    await env.settled('app=mover', { 're-a': 1 });
    await env.ok(c, ['delete', 'deployment', 'mover', '--wait=false']);
  });

  it('kubectl scale sizes every site; set image rolls each site, rollout status waits for all, history and undo (to the previous and to a revision) work with both kubectls', async () => {
    await env.ok(env.kubectl, ['scale', 'deployment', 'web', '--replicas=3']);
    await env.settled('app=web', { 're-a': 3, 're-b': 3 });
    await Promise.all(
      env.clients.map(async (c) => {
        const name = `roll-${c.tag}`;
        const image = async (): Promise<string> => env.ok(c, ['get', 'deployment', name, '-o', 'jsonpath={.spec.template.spec.containers[0].image}']);
        /** `rollout status` says done: at that moment every live pod runs `wanted`, ready, 2 on each site (the old ones are terminating). */
        const rolledOut = async (wanted: string): Promise<void> => {
          assert.match(await env.ok(c, ['rollout', 'status', `deployment/${name}`, '--timeout=30s']), /successfully rolled out/, c.label);
          const live = (await env.list<Pod>(podsPath(`app=${name}`))).filter((p) => p.metadata.deletionTimestamp === undefined);
          assert.deepEqual(countBySite(live), { 're-a': 2, 're-b': 2 }, c.label);
          assert.ok(live.every((p) => p.spec.containers[0]?.image === wanted && isReady(p)), `${c.label}: ${JSON.stringify(live.map((p) => [p.spec.containers[0]?.image, isReady(p)]))}`);
        };
        await env.apply(c, deploymentYaml(name, { replicas: 2 }));
        await env.ok(c, ['rollout', 'status', `deployment/${name}`, '--timeout=30s']);
        await env.ok(c, ['set', 'image', `deployment/${name}`, 'web=nginx:1.18']);
        await rolledOut('nginx:1.18');
        assert.deepEqual(await revisions(c, name), ['1', '2'], c.label);
        assert.match(await env.ok(c, ['rollout', 'undo', `deployment/${name}`]), /rolled back/, c.label);
        assert.equal(await image(), 'nginx:1.17', c.label);
        await rolledOut('nginx:1.17');
        assert.deepEqual(await revisions(c, name), ['2', '3'], c.label);
        assert.match(await env.ok(c, ['rollout', 'undo', `deployment/${name}`, '--to-revision=2']), /rolled back/, c.label);
        assert.equal(await image(), 'nginx:1.18', c.label);
        await rolledOut('nginx:1.18');
        assert.deepEqual(await revisions(c, name), ['3', '4'], c.label);
        await env.ok(c, ['delete', 'deployment', name, '--wait=false']);
      }),
    );
  });

  it('a regional edge whose per-vK8s quota is reached leaves the pods it cannot take Pending with a FailedScheduling event', async () => {
    const c = env.kubectl;
    // re-b allows this vK8s 2 CPUs; web holds 3 × 0.1 there, so one `large` pod (1 CPU) fits and two do not.
    // The last test's rollout pods hold quota until they are gone (terminating pods count, as kube's): wait, so the figures below are exact.
    await waitFor('the rollout test\'s pods gone', async () => {
      for (const c of env.clients) if ((await env.list<Pod>(podsPath(`app=roll-${c.tag}`))).length > 0) return undefined;
      return true;
    });
    await env.apply(c, deploymentYaml('big', { replicas: 3, annotations: { 'svc.io/sites': 'svc-io-system/re-b', 'svc.io/workload-flavor': 'large' } }));
    const pending = await waitFor('two pods of big Pending, one Running', async () => {
      const pods = await env.list<Pod>(podsPath('app=big'));
      const waiting = pods.filter((p) => p.status?.phase === 'Pending' && p.spec.nodeName === undefined);
      return pods.length === 3 && waiting.length === 2 && pods.some(isReady) ? waiting : undefined;
    });
    const events = await waitFor('FailedScheduling events', async () => {
      const rows = parseTable(await env.ok(c, ['get', 'events', '--field-selector', 'reason=FailedScheduling']));
      return pending.every((p) => rows.some((r) => r['OBJECT'] === `pod/${p.metadata.name ?? ''}`)) ? rows : undefined;
    });
    const row = events.find((r) => r['OBJECT'] === `pod/${pending[0]?.metadata.name ?? ''}`);
    assert.equal(row?.['TYPE'], 'Warning');
    assert.match(row?.['MESSAGE'] ?? '', /quota of virtual_k8s default\/vk1 on site re-b is reached \(cpu: the pod's limits need 1000m, 1300m of 2000m in use/);
    const table = parseTable(await env.ok(c, ['get', 'pods', '-l', 'app=big']));
    assert.deepEqual(table.map((r) => r['STATUS']).sort(), ['Pending', 'Pending', 'Running']);
    await env.ok(c, ['delete', 'deployment', 'big', '--wait=false']);
  });

  it('a flavor caps container limits on a regional edge, a customer edge keeps the container\'s own; pods learn their site from SVC_IO_SITENAME', async () => {
    const c = env.kubectl;
    const container = '        resources: {limits: {cpu: "2", memory: 1Gi}}\n';
    await env.apply(c, deploymentYaml('flav', { replicas: 1, container, annotations: { 'svc.io/sites': 'svc-io-system/re-a, system/ce-1', 'svc.io/workload-flavor': 'medium' } }));
    await env.settled('app=flav', { 'ce-1': 1, 're-a': 1 });
    const out = await env.ok(c, ['get', 'pods', '-l', 'app=flav', '-o', 'jsonpath={range .items[*]}{.spec.nodeName} {.spec.containers[0].resources.limits.cpu} {.spec.containers[0].resources.limits.memory} {.spec.containers[0].env[?(@.name=="SVC_IO_SITENAME")].value}{"\\n"}{end}']);
    assert.deepEqual(out.trim().split('\n').sort(), ['ce-1-n0 2 1Gi ce-1', 're-a-n0 250m 250Mi re-a']);
    await env.ok(c, ['delete', 'deployment', 'flav', '--wait=false']);
  });

  /** The Endpoints of Service web: ready and not-ready addresses as `[nodeName, pod]`, sorted. */
  const endpoints = async (): Promise<{ ready: string[][]; notReady: string[][] }> => {
    const ep = await env.read<Endpoints>('api/v1/namespaces/default/endpoints/web');
    const of = (key: 'addresses' | 'notReadyAddresses'): string[][] => (ep?.subsets ?? []).flatMap((s) => s[key] ?? []).map((a) => [a.nodeName ?? '', a.targetRef?.name ?? '']).sort();
    return { ready: of('addresses'), notReady: of('notReadyAddresses') };
  };
  const webPods = async (): Promise<string[][]> => (await env.list<Pod>(podsPath('app=web'))).map((p) => [p.spec.nodeName ?? '', p.metadata.name ?? '']).sort();

  it('a Service selecting the Deployment\'s pods gets Endpoints with an address of every pod on every site (nodeName, targetRef)', async () => {
    const c = env.kubectl;
    await env.apply(c, SERVICE);
    const pods = await webPods();
    assert.equal(pods.length, 6);
    await waitFor('Endpoints of web with every pod', async () => (JSON.stringify((await endpoints()).ready) === JSON.stringify(pods) ? true : undefined), {
      describe: async () => JSON.stringify(await endpoints()),
    });
    const ep = await env.json<Endpoints>(c, ['get', 'endpoints', 'web']);
    const addresses = ep.subsets?.flatMap((s) => s.addresses ?? []) ?? [];
    assert.ok(addresses.every((a) => a.targetRef?.kind === 'Pod' && a.targetRef.namespace === 'default' && /^\d+\.\d+\.\d+\.\d+$/.test(a.ip)));
    assert.deepEqual(ep.subsets?.[0]?.ports, [{ name: 'http', port: 80, protocol: 'TCP' }]);
  });

  it('a site that stops heartbeating goes FAILED: its Node NotReady, its pods not Ready (out of the Endpoints), the other sites untouched; back, it is whole again', async () => {
    const c = env.clients[0] as KubectlClient;
    await env.stopSite('re-b');
    const nodes = await waitFor('re-b-n0 NotReady', async () => {
      const rows = parseTable(await env.ok(c, ['get', 'nodes']));
      return rows.find((r) => r['NAME'] === 're-b-n0')?.['STATUS'] === 'NotReady' ? rows : undefined;
    });
    assert.deepEqual(nodes.map((r) => [r['NAME'], r['STATUS']]), [['ce-1-n0', 'Ready'], ['re-a-n0', 'Ready'], ['re-b-n0', 'NotReady']]);
    const state = async (site: string): Promise<string | undefined> => (await env.site(site)).status?.[0]?.state;
    await waitFor('site re-b FAILED', async () => ((await state('re-b')) === 'FAILED' ? true : undefined));
    assert.deepEqual([await state('re-a'), await state('ce-1')], ['ONLINE', 'ONLINE']);
    const pods = await waitFor('the pods of re-b not Ready', async () => {
      const all = await env.list<Pod>(podsPath('app=web'));
      return all.filter((p) => p.spec.nodeName === 're-b-n0').every((p) => !isReady(p)) ? all : undefined;
    });
    assert.deepEqual(pods.map((p) => [p.spec.nodeName, isReady(p)]).sort(), [['re-a-n0', true], ['re-a-n0', true], ['re-a-n0', true], ['re-b-n0', false], ['re-b-n0', false], ['re-b-n0', false]]);
    const all = await webPods();
    await waitFor('re-b out of the ready addresses', async () => {
      const ep = await endpoints();
      return JSON.stringify(ep.ready) === JSON.stringify(all.filter(([n]) => n === 're-a-n0')) && JSON.stringify(ep.notReady) === JSON.stringify(all.filter(([n]) => n === 're-b-n0')) ? true : undefined;
    });
    // As kube's node lifecycle controller: the Ready condition goes False; container statuses (kubectl's READY column) stay as the site last said.
    const ready = await env.ok(c, ['get', 'pods', '-l', 'app=web,svc.io/siteName=re-b', '-o', 'jsonpath={range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\\n"}{end}']);
    assert.deepEqual(ready.trim().split('\n'), ['False', 'False', 'False'], c.label);
    // As kube's MarkPodsNotReady: a Warning NodeNotReady event on each pod marked; the Deployment counts only the ready ones.
    const onReB = new Set(all.filter(([n]) => n === 're-b-n0').map(([, pod]) => pod));
    const marked = await waitFor('a NodeNotReady event on each pod of re-b', async () => {
      const list = await env.json<{ items: Array<KubeObject & { involvedObject: { name: string }; type?: string; message?: string; source?: { component?: string } }> }>(c, ['get', 'events', '--field-selector', 'reason=NodeNotReady']);
      const ours = list.items.filter((e) => onReB.has(e.involvedObject.name));
      return ours.length === onReB.size ? ours : undefined;
    });
    assert.deepEqual([...new Set(marked.map((e) => `${e.type ?? ''} ${e.message ?? ''} ${e.source?.component ?? ''}`))], ['Warning Node is not ready node-controller']);
    const readyReplicas = async (): Promise<number | undefined> => (await env.read<Deployment>('apis/apps/v1/namespaces/default/deployments/web'))?.status?.['readyReplicas'];
    await waitFor('the Deployment counts 3 ready replicas', async () => ((await readyReplicas()) === 3 ? true : undefined), { describe: async () => String(await readyReplicas()) });
    assert.deepEqual((await env.list<Pod>(podsPath('app=web'))).map((p) => p.spec.nodeName).sort(), all.map(([n]) => n), 'nothing moved to another site');

    // The site comes back (its agent again, with its stored credential): ONLINE, Node Ready, its pods Ready again where they were.
    await env.restartSite('re-b');
    await waitFor('site re-b ONLINE', async () => ((await state('re-b')) === 'ONLINE' ? true : undefined));
    await env.settled('app=web', { 're-a': 3, 're-b': 3 });
    assert.deepEqual(await webPods(), all, 'the same pods: nothing was torn down and rebuilt');
    await waitFor('re-b back in the ready addresses', async () => (JSON.stringify((await endpoints()).ready) === JSON.stringify(all) ? true : undefined));
    await waitFor('the Deployment counts 6 ready replicas again', async () => ((await readyReplicas()) === 6 ? true : undefined), { describe: async () => String(await readyReplicas()) });
    assert.match(await env.ok(c, ['get', 'node', 're-b-n0']), /re-b-n0\s+Ready/);
  });

  it('a ConfigMap is placed like a workload, each decision a Placed event; scaling down records kubelet\'s Killing per container of each pod stopped', async () => {
    const c = env.kubectl;
    const placed = async (): Promise<string[]> => parseTable(await env.ok(c, ['get', 'events', '--field-selector', 'involvedObject.name=settings,reason=Placed', '--sort-by=.metadata.creationTimestamp'])).map((r) => r['MESSAGE'] ?? '');
    await env.apply(c, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings}\ndata: {mode: fast}\n');
    await waitFor('the default placement announced', async () => ((await placed()).length === 1 ? true : undefined));
    await env.ok(c, ['annotate', 'configmap', 'settings', 'svc.io/sites=system/ce-1']);
    await waitFor('the new placement announced', async () => ((await placed()).length === 2 ? true : undefined), { describe: async () => JSON.stringify(await placed()) });
    assert.deepEqual(await placed(), ['placed on sites re-a, re-b', 'placed on site ce-1']);
    await env.ok(c, ['annotate', 'configmap', 'settings', '--overwrite', 'svc.io/sites=svc-io-system/nowhere']);
    const failed = await waitFor('a FailedPlacement event about settings', async () => {
      const rows = parseTable(await env.ok(c, ['get', 'events', '--field-selector', 'involvedObject.name=settings,reason=FailedPlacement']));
      return rows.length > 0 ? rows : undefined;
    });
    assert.match(failed[0]?.['MESSAGE'] ?? '', /svc-io-system\/nowhere.*does not exist/);
    await waitFor('placed on no site', async () => ((await placed()).at(-1) === 'placed on no site' ? true : undefined), { describe: async () => JSON.stringify(await placed()) });

    // Users cannot delete pods in a vK8s: scaling down makes the ReplicaSets delete one per site.
    const before = new Map((await webPods()).map(([node, pod]) => [pod, node]));
    await env.ok(c, ['scale', 'deployment', 'web', '--replicas=2']);
    const killing = await waitFor('a Killing event per site about the web pods', async () => {
      const list = await env.json<{ items: Array<KubeObject & { involvedObject: { name: string }; message?: string; source?: { component?: string; host?: string } }> }>(c, ['get', 'events', '--field-selector', 'reason=Killing']);
      const ours = list.items.filter((e) => before.has(e.involvedObject.name));
      return ours.length >= 2 ? ours : undefined;
    });
    assert.deepEqual(killing.map((e) => [e.message, e.source?.component, e.source?.host]).sort(), [['Stopping container web', 'kubelet', 're-a-n0'], ['Stopping container web', 'kubelet', 're-b-n0']]);
    assert.ok(killing.every((e) => before.get(e.involvedObject.name) === e.source?.host), 'each event is about a pod of its node');
    assert.equal(new Set(killing.map((e) => e.involvedObject.name)).size, 2, 'one event per stopped pod');
  });
});
