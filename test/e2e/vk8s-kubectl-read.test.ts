import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { internalAddressOf, KUBELET_VERSION, DEFAULT_CONTAINER_RUNTIME } from '../../src/site-plane/site-node.js';
import { registerTestSites } from '../../src/site-plane/testing/register-test-sites.js';
import { platformObjects, userObjectsYaml } from './support/kubectl-fixtures.js';
import { parseTable, startKubectlMatrix, type KubectlMatrix } from './support/kubectl-matrix.js';

interface Item {
  kind: string;
  metadata: { name: string; namespace?: string };
  spec: Record<string, unknown>;
}

/** kubectl's reading commands (get, describe, explain, discovery) against every served kind. */
describe('kubectl 1.20 and the newest kubectl read a virtual cluster', () => {
  let m: KubectlMatrix;

  before(async () => {
    m = await startKubectlMatrix();
    const [old] = m.clients;
    assert.ok(old);
    await m.ok(old, ['create', '-f', m.file('objects.yaml', userObjectsYaml('r'))]);
    // Nodes come from sites: one customer-edge site with one node, `edge-1`.
    await registerTestSites((method, path, options) => m.h.call(method, path, options), { tenant: m.h.adminToken, platform: m.h.platformToken }, 'edge-agent', [{ name: 'edge', type: 'CUSTOMER_EDGE', nodes: [{ name: '1', cpu: '4', memory: '8Gi' }] }]);
    for (const object of platformObjects()) await m.platformCreate(object);
  });
  after(async () => {
    await m?.close();
  });

  it('version and cluster-info reach the server', async () => {
    for (const c of m.clients) {
      assert.match(await m.ok(c, ['version']), /Server Version: (version\.Info\{Major:"1", Minor:"17", GitVersion:"v1\.17\.0\+edgeplane|v1\.17\.0\+edgeplane)/, c.label);
      // cluster-info lists kube-system's cluster services; the one namespace here is "default",
      // so kubectl shows kube's RBAC refusal, as for any user without access to kube-system.
      const info = await m.run(c, ['cluster-info']);
      assert.notEqual(info.status, 0, c.label);
      assert.match(info.stderr, /Error from server \(Forbidden\): services is forbidden: User "kube-vk1@acme" cannot list resource "services" in API group "" in the namespace "kube-system"/, c.label);
    }
  });

  it('api-versions, api-resources filtered by scope and verb, and explain of the 1.17 schema', async () => {
    for (const c of m.clients) {
      assert.equal(await m.ok(c, ['api-versions']), 'apps/v1\nbatch/v1\nbatch/v1beta1\nv1\n', c.label);
      const clusterScoped = (await m.ok(c, ['api-resources', '--namespaced=false', '-o', 'name'])).trim().split('\n').sort();
      assert.deepEqual(clusterScoped, ['namespaces', 'nodes', 'persistentvolumes'], c.label);
      const creatable = (await m.ok(c, ['api-resources', '--verbs=create', '-o', 'name'])).trim().split('\n').sort();
      assert.deepEqual(creatable, ['configmaps', 'cronjobs.batch', 'deployments.apps', 'jobs.batch', 'persistentvolumeclaims', 'secrets', 'serviceaccounts', 'services', 'statefulsets.apps'], c.label);
      const field = await m.ok(c, ['explain', 'deployment.spec.replicas']);
      assert.match(field, /KIND:\s+Deployment\nVERSION:\s+apps\/v1\n\nFIELD:\s+replicas <integer>/, c.label);
      assert.match(field, /Number of desired pods/, c.label);
      assert.match(await m.ok(c, ['explain', 'cronjobs']), /KIND:\s+CronJob\nVERSION:\s+batch\/v1beta1/, c.label);
    }
  });

  it('get prints kube-apiserver 1.17\'s columns and cells for every served kind', async () => {
    for (const c of m.clients) {
      const table = async (resource: string, name?: string, wide = false): Promise<Record<string, string>> => {
        const rows = parseTable(await m.ok(c, ['get', resource, ...(name === undefined ? [] : [name]), ...(wide ? ['-o', 'wide'] : [])]));
        assert.equal(rows.length, 1, `${c.label} get ${resource}`);
        return rows[0] ?? {};
      };
      const age = /^\d+[smhd]/;
      const deploy = await table('deployments', 'web-r', true);
      assert.deepEqual(Object.keys(deploy), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR'], c.label);
      assert.deepEqual([deploy['NAME'], deploy['READY'], deploy['UP-TO-DATE'], deploy['AVAILABLE'], deploy['CONTAINERS'], deploy['IMAGES'], deploy['SELECTOR']], ['web-r', '0/2', '0', '0', 'nginx', 'nginx:1.17', 'app=web-r'], c.label);
      assert.match(deploy['AGE'] ?? '', age);
      assert.deepEqual(Object.keys(await table('deploy', 'web-r')), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE'], `${c.label}: wide columns hidden`);
      const sts = await table('statefulsets', undefined, true);
      assert.deepEqual([sts['NAME'], sts['READY'], sts['CONTAINERS'], sts['IMAGES']], ['db-r', '0/1', 'pg', 'postgres'], c.label);
      const job = await table('jobs', undefined, true);
      assert.deepEqual([job['NAME'], job['COMPLETIONS'], job['DURATION'], job['IMAGES']], ['once-r', '0/1', '', 'busybox:1.31'], c.label);
      assert.match(job['SELECTOR'] ?? '', /^controller-uid=[0-9a-f-]{36}$/, c.label);
      const cj = await table('cronjobs');
      assert.deepEqual([cj['NAME'], cj['SCHEDULE'], cj['SUSPEND'], cj['ACTIVE'], cj['LAST SCHEDULE']], ['tick-r', '*/5 * * * *', 'False', '0', '<none>'], c.label);
      const svc = await table('services', undefined, true);
      assert.deepEqual([svc['NAME'], svc['TYPE'], svc['EXTERNAL-IP'], svc['PORT(S)'], svc['SELECTOR']], ['web-r', 'ClusterIP', '<none>', '80/TCP', 'app=web-r'], c.label);
      assert.match(svc['CLUSTER-IP'] ?? '', /^10\.96\.\d+\.\d+$/, c.label);
      assert.deepEqual(Object.values(await table('secrets')).slice(0, 3), ['creds-r', 'Opaque', '2'], c.label);
      assert.deepEqual(Object.values(await table('cm')).slice(0, 2), ['settings-r', '1'], c.label);
      assert.deepEqual(Object.values(await table('sa')).slice(0, 2), ['robot-r', '0'], c.label);
      const pvc = await table('pvc', undefined, true);
      assert.deepEqual([pvc['NAME'], pvc['STATUS'], pvc['VOLUME'], pvc['CAPACITY'], pvc['ACCESS MODES'], pvc['VOLUMEMODE']], ['data-r', 'Pending', '', '', '', 'Filesystem'], c.label);
      const pod = await table('pods', undefined, true);
      assert.deepEqual(pod, { ...pod, NAME: 'web-5d4f8c-x7k2p', READY: '1/1', STATUS: 'Running', RESTARTS: '3', IP: '10.244.1.7', NODE: 'edge-1', 'NOMINATED NODE': '<none>', 'READINESS GATES': '<none>' }, c.label);
      const rs = await table('rs', undefined, true);
      assert.deepEqual([rs['NAME'], rs['DESIRED'], rs['CURRENT'], rs['READY'], rs['CONTAINERS'], rs['SELECTOR']], ['web-5d4f8c', '2', '2', '1', 'nginx', 'app=web,pod-template-hash=5d4f8c'], c.label);
      assert.equal((await table('endpoints'))['ENDPOINTS'], '10.244.1.7:80', c.label);
      const event = await table('events');
      assert.deepEqual([event['TYPE'], event['REASON'], event['OBJECT'], event['MESSAGE']], ['Normal', 'ScalingReplicaSet', 'deployment/web', 'Scaled up replica set web-5d4f8c to 2'], c.label);
      const node = await table('nodes', undefined, true);
      assert.deepEqual(node, { ...node, NAME: 'edge-1', STATUS: 'Ready', ROLES: '<none>', VERSION: KUBELET_VERSION, 'INTERNAL-IP': internalAddressOf('edge-1'), 'EXTERNAL-IP': '<none>', 'OS-IMAGE': 'Edgeplane simulated site', 'KERNEL-VERSION': '5.10.0-edgeplane', 'CONTAINER-RUNTIME': DEFAULT_CONTAINER_RUNTIME }, c.label);
      const pv = await table('pv');
      assert.deepEqual([pv['NAME'], pv['CAPACITY'], pv['ACCESS MODES'], pv['RECLAIM POLICY'], pv['STATUS'], pv['CLAIM'], pv['STORAGECLASS']], ['pv-1', '5Gi', 'RWO', 'Retain', 'Available', '', 'local'], c.label);
      assert.deepEqual(Object.values(await table('namespaces')).slice(0, 2), ['default', 'Active'], c.label);
    }
  });

  it('get of every served kind at once, as -o wide, json and name', async () => {
    const kinds = 'deploy,rs,sts,job,cj,po,svc,ep,secret,cm,pvc,sa,ev,no,ns,pv';
    const expected = [
      'deployment.apps/web-r', 'replicaset.apps/web-5d4f8c', 'statefulset.apps/db-r', 'job.batch/once-r', 'cronjob.batch/tick-r', 'pod/web-5d4f8c-x7k2p', 'service/web-r', 'endpoints/web',
      'secret/creds-r', 'configmap/settings-r', 'persistentvolumeclaim/data-r', 'serviceaccount/robot-r', 'event/web.16a2b3c4d5e6f7a8', 'node/edge-1', 'namespace/default', 'persistentvolume/pv-1',
    ];
    for (const c of m.clients) {
      assert.deepEqual((await m.ok(c, ['get', kinds, '-o', 'name'])).trim().split('\n'), expected, c.label);
      const list = JSON.parse(await m.ok(c, ['get', kinds, '-o', 'json'])) as { items: Array<{ apiVersion: string; kind: string; metadata: { name: string; uid: string; resourceVersion: string; creationTimestamp: string } }> };
      assert.equal(list.items.length, expected.length, c.label);
      for (const item of list.items) {
        assert.match(item.apiVersion, /^(v1|apps\/v1|batch\/v1|batch\/v1beta1)$/, `${c.label}: ${item.kind}`);
        assert.ok(item.metadata.uid !== '' && /^\d+$/.test(item.metadata.resourceVersion) && item.metadata.creationTimestamp !== '', `${c.label}: ${item.kind} metadata`);
      }
      const wide = await m.ok(c, ['get', kinds, '-o', 'wide']);
      // One table per kind, each headed by its own columns.
      assert.equal(wide.split('\n').filter((line) => line.startsWith('NAME ') || line.startsWith('LAST SEEN ')).length, expected.length, `${c.label}:\n${wide}`);
    }
  });

  it('get -o yaml|json|name|jsonpath show the stored objects with kube\'s defaults', async () => {
    for (const c of m.clients) {
      const deploy = parse(await m.ok(c, ['get', 'deploy', 'web-r', '-o', 'yaml'])) as Item & { spec: { template: { spec: { containers: Array<Record<string, unknown>> } & Record<string, unknown> } } };
      assert.deepEqual([deploy.kind, deploy.metadata.namespace], ['Deployment', 'default'], c.label);
      assert.deepEqual(
        { ...deploy.spec, template: undefined },
        { replicas: 2, revisionHistoryLimit: 10, progressDeadlineSeconds: 600, selector: { matchLabels: { app: 'web-r' } }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, template: undefined },
        c.label,
      );
      const pod = deploy.spec.template.spec;
      assert.deepEqual([pod['restartPolicy'], pod['dnsPolicy'], pod['schedulerName'], pod['terminationGracePeriodSeconds'], pod['securityContext']], ['Always', 'ClusterFirst', 'default-scheduler', 30, {}], c.label);
      assert.deepEqual(pod.containers[0], {
        name: 'nginx',
        image: 'nginx:1.17',
        imagePullPolicy: 'IfNotPresent',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        env: [{ name: 'MODE', value: 'fast' }],
        resources: {},
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
      }, c.label);
      const untagged = parse(await m.ok(c, ['get', 'sts', 'db-r', '-o', 'yaml'])) as { spec: { podManagementPolicy: string; updateStrategy: unknown; template: { spec: { containers: Array<{ imagePullPolicy: string }> } } } };
      assert.equal(untagged.spec.template.spec.containers[0]?.imagePullPolicy, 'Always', `${c.label}: untagged image`);
      assert.deepEqual([untagged.spec.podManagementPolicy, untagged.spec.updateStrategy], ['OrderedReady', { type: 'RollingUpdate', rollingUpdate: { partition: 0 } }], c.label);
      const svc = JSON.parse(await m.ok(c, ['get', 'svc', 'web-r', '-o', 'json'])) as Item & { spec: { clusterIP: string; ports: unknown[] } };
      assert.match(svc.spec.clusterIP, /^10\.96\.\d{1,3}\.\d{1,3}$/, c.label);
      assert.deepEqual({ ...svc.spec, clusterIP: '' }, { clusterIP: '', type: 'ClusterIP', sessionAffinity: 'None', selector: { app: 'web-r' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 80 }] }, c.label);
      const secret = JSON.parse(await m.ok(c, ['get', 'secret', 'creds-r', '-o', 'json'])) as { type: string; data: Record<string, string> };
      assert.deepEqual([secret.type, secret.data], ['Opaque', { password: 'czNjcmV0', user: 'YWRtaW4=' }], c.label);
      const list = JSON.parse(await m.ok(c, ['get', 'cm,sa', '-o', 'json'])) as { kind: string; items: Item[] };
      assert.equal(list.kind, 'List', c.label);
      assert.deepEqual(list.items.map((i) => `${i.kind}/${i.metadata.name}`), ['ConfigMap/settings-r', 'ServiceAccount/robot-r'], c.label);
      assert.equal(await m.ok(c, ['get', 'deploy,svc,cm,pvc', '-o', 'name']), 'deployment.apps/web-r\nservice/web-r\nconfigmap/settings-r\npersistentvolumeclaim/data-r\n', c.label);
      assert.equal(await m.ok(c, ['get', 'cj', 'tick-r', '-o', 'jsonpath={.spec.concurrencyPolicy} {.spec.suspend} {.spec.jobTemplate.spec.template.spec.containers[0].imagePullPolicy}']), 'Allow false IfNotPresent', c.label);
      assert.equal(await m.ok(c, ['get', 'job', 'once-r', '-o', 'jsonpath={.spec.backoffLimit} {.spec.completions} {.spec.parallelism}']), '6 1 1', c.label);
    }
  });

  it('get selects with -l and --field-selector, and pages with --chunk-size', async () => {
    const [old] = m.clients;
    assert.ok(old);
    await m.ok(old, ['create', 'configmap', 'extra-r', '--from-literal=k=v']);
    await m.ok(old, ['label', 'cm', 'extra-r', 'tier=b']);
    for (const c of m.clients) {
      const names = async (args: string[]): Promise<string> => (await m.ok(c, ['get', ...args, '-o', 'name'])).trim().split('\n').join(' ');
      assert.equal(await names(['cm', '-l', 'tier=a']), 'configmap/settings-r', c.label);
      assert.equal(await names(['cm', '-l', 'tier in (a,b),tier!=a']), 'configmap/extra-r', c.label);
      assert.equal(await names(['deploy,svc', '-l', 'tier=front']), 'deployment.apps/web-r', c.label);
      assert.equal(await names(['cm', '--field-selector', 'metadata.name=extra-r']), 'configmap/extra-r', c.label);
      assert.equal(await names(['secrets', '--field-selector', 'type=Opaque']), 'secret/creds-r', c.label);
      assert.equal(await names(['events', '--field-selector', 'involvedObject.kind=Deployment,reason=ScalingReplicaSet']), 'event/web.16a2b3c4d5e6f7a8', c.label);
      const none = await m.run(c, ['get', 'cm', '-l', 'tier=zzz']);
      assert.deepEqual([none.status, none.stdout, none.stderr], [0, '', 'No resources found in default namespace.\n'], c.label);
      const badField = await m.fails(c, ['get', 'cm', '--field-selector', 'data.k=v']);
      assert.match(badField, /Error from server \(BadRequest\): .*field label not supported: data\.k/, c.label);
      const paged = await m.run(c, ['get', 'cm', '--chunk-size=1', '-v=6']);
      assert.equal(paged.status, 0, paged.stderr);
      assert.deepEqual(parseTable(paged.stdout).map((r) => r['NAME']), ['extra-r', 'settings-r'], c.label);
      const pages = paged.stderr.split('\n').filter((line) => /GET .*\/configmaps\?.*limit=1/.test(line) || /url=".*\/configmaps\?.*limit=1/.test(line));
      assert.equal(pages.length, 2, `${c.label}: ${paged.stderr}`);
      assert.match(pages[1] ?? '', /continue=/, c.label);
    }
  });

  it('get -A lists the kinds served across namespaces, and get all expands the category', async () => {
    for (const c of m.clients) {
      const across = parseTable(await m.ok(c, ['get', 'serviceaccounts', '-A']));
      assert.deepEqual(across.map((r) => [r['NAMESPACE'], r['NAME']]), [['default', 'robot-r']], c.label);
      assert.deepEqual(parseTable(await m.ok(c, ['get', 'cronjobs', '--all-namespaces'])).map((r) => [r['NAMESPACE'], r['NAME'], r['SCHEDULE']]), [['default', 'tick-r', '*/5 * * * *']], c.label);
      assert.deepEqual(parseTable(await m.ok(c, ['get', 'events', '-A'])).map((r) => [r['NAMESPACE'], r['REASON']]), [['default', 'ScalingReplicaSet']], c.label);
      const all = await m.ok(c, ['get', 'all']);
      for (const name of ['pod/web-5d4f8c-x7k2p', 'service/web-r', 'deployment.apps/web-r', 'replicaset.apps/web-5d4f8c', 'statefulset.apps/db-r', 'job.batch/once-r', 'cronjob.batch/tick-r']) {
        assert.match(all, new RegExp(`^${name.replace(/\./g, '\\.')}\\s`, 'm'), `${c.label}: ${name} in\n${all}`);
      }
    }
  });

  it('get -w prints the list, then each change, until stopped', async () => {
    for (const c of m.clients) {
      const name = `watched-${c.tag}`;
      await m.ok(c, ['create', '-f', m.file(`${name}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {a: '1'}\n`)]);
      const watch = m.watch(c, ['get', 'cm', name, '-w']);
      await watch.waitFor(new RegExp(`^${name}\\s+1\\s`, 'm'));
      await m.ok(c, ['patch', 'cm', name, '--type', 'merge', '-p', '{"data":{"b":"2"}}']);
      const seen = await watch.waitFor(new RegExp(`^${name}\\s+2\\s`, 'm'));
      await watch.stop();
      const rows = parseTable(seen);
      assert.deepEqual(rows.map((r) => [r['NAME'], r['DATA']]), [[name, '1'], [name, '2']], c.label);
      // A change the platform makes (a container restart) reaches a pods watch as a new row.
      const pods = m.watch(c, ['get', 'pods', '-w']);
      const restarts = Number(/^web-5d4f8c-x7k2p\s+1\/1\s+Running\s+(\d+)\s/m.exec(await pods.waitFor(/^web-5d4f8c-x7k2p\s+1\/1\s+Running\s+\d+\s/m))?.[1]);
      await m.platformUpdateStatus('Pod', 'web-5d4f8c-x7k2p', (status) => {
        const container = (status['containerStatuses'] as Array<{ restartCount: number }>)[0];
        if (container !== undefined) container.restartCount += 1;
      });
      await pods.waitFor(new RegExp(`^web-5d4f8c-x7k2p\\s+1/1\\s+Running\\s+${restarts + 1}\\s`, 'm'));
      await pods.stop();
    }
  });

  it('describe shows deployments, services and configmaps with their events', async () => {
    for (const c of m.clients) {
      const deploy = await m.ok(c, ['describe', 'deployment', 'web-r']);
      assert.match(deploy, /^Name:\s+web-r$/m, c.label);
      assert.match(deploy, /^Selector:\s+app=web-r$/m, c.label);
      assert.match(deploy, /^Replicas:\s+2 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m, c.label);
      assert.match(deploy, /^StrategyType:\s+RollingUpdate$/m, c.label);
      assert.match(deploy, /^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m, c.label);
      assert.match(deploy, /^ {4}Image:\s+nginx:1\.17$/m, c.label);
      assert.match(deploy, /^ {6}MODE:\s+fast$/m, c.label);
      const svc = await m.ok(c, ['describe', 'svc', 'web-r']);
      assert.match(svc, /^Type:\s+ClusterIP$/m, c.label);
      assert.match(svc, /^IP:\s+10\.96\.\d+\.\d+$/m, c.label);
      assert.match(svc, /^Port:\s+http\s+80\/TCP$/m, c.label);
      assert.match(svc, /^TargetPort:\s+80\/TCP$/m, c.label);
      assert.match(svc, /^Session Affinity:\s+None$/m, c.label);
      const cm = await m.ok(c, ['describe', 'configmap', 'settings-r']);
      assert.match(cm, /^Labels:\s+tier=a$/m, c.label);
      assert.match(cm, /^mode:\n----\nfast$/m, c.label);
      assert.match(await m.ok(c, ['describe', 'rs', 'web-5d4f8c']), /^Replicas:\s+2 current \/ 2 desired$/m, c.label);
    }
  });
});
