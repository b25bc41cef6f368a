import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { userObjectsYaml } from './support/kubectl-fixtures.js';
import { startKubectlMatrix, type KubectlMatrix } from './support/kubectl-matrix.js';

interface Container {
  name: string;
  image: string;
  env?: Array<{ name: string; value: string }>;
  ports?: Array<{ containerPort: number; protocol: string }>;
}
type Deployment = KubeObject & { spec: { replicas: number; template: { metadata: { annotations?: Record<string, string> }; spec: { containers: Container[] } } } };
type ConfigMap = KubeObject & { data: Record<string, string> };

const DEPLOYMENTS = 'apis/apps/v1/namespaces/default/deployments';
const CONFIGMAPS = 'api/v1/namespaces/default/configmaps';

function appYaml(name: string, containers: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
${containers}`;
}

const APP_V1 = `      - name: main
        image: nginx:1.17
        ports: [{containerPort: 80}]
        env: [{name: A, value: "1"}]
`;
const APP_V2 = `      - name: main
        image: nginx:1.18
        ports: [{containerPort: 80}, {containerPort: 443}]
        env: [{name: A, value: "2"}, {name: B, value: b}]
      - name: side
        image: busybox:1.31
`;

/** kubectl's writing commands against a virtual cluster, each scenario with both kubectls on objects of their own. */
describe('kubectl 1.20 and the newest kubectl write to a virtual cluster', () => {
  let m: KubectlMatrix;
  before(async () => {
    m = await startKubectlMatrix();
  });
  after(async () => {
    await m?.close();
  });

  it('create -f makes one object of every user-writable kind, defaulted as kube does', async () => {
    for (const c of m.clients) {
      const t = c.tag;
      const out = await m.ok(c, ['create', '-f', m.file(`objects-${t}.yaml`, userObjectsYaml(t))]);
      assert.equal(
        out,
        [`deployment.apps/web-${t}`, `statefulset.apps/db-${t}`, `job.batch/once-${t}`, `cronjob.batch/tick-${t}`, `service/web-${t}`, `secret/creds-${t}`, `configmap/settings-${t}`, `persistentvolumeclaim/data-${t}`, `serviceaccount/robot-${t}`]
          .map((n) => `${n} created\n`)
          .join(''),
        c.label,
      );
      const deploy = (await m.read(`${DEPLOYMENTS}/web-${t}`)) as Deployment;
      assert.deepEqual([deploy.metadata.generation, deploy.spec.template.spec.containers[0]?.image], [1, 'nginx:1.17'], c.label);
      const pvc = (await m.read(`api/v1/namespaces/default/persistentvolumeclaims/data-${t}`)) as KubeObject & { spec: { volumeMode: string }; status: { phase: string } };
      assert.deepEqual([pvc.spec.volumeMode, pvc.status.phase], ['Filesystem', 'Pending'], c.label);
      const job = (await m.read(`apis/batch/v1/namespaces/default/jobs/once-${t}`)) as KubeObject & { spec: { selector: { matchLabels: Record<string, string> } } };
      assert.equal(job.spec.selector.matchLabels['controller-uid'], job.metadata.uid, `${c.label}: the Job's generated selector`);
    }
  });

  it('apply creates, merges lists by key on update, diffs, and dry-runs on the server without persisting', async () => {
    for (const c of m.clients) {
      const name = `app-${c.tag}`;
      const v1 = m.file(`${name}-v1.yaml`, appYaml(name, APP_V1));
      const v2 = m.file(`${name}-v2.yaml`, appYaml(name, APP_V2));
      assert.equal(await m.ok(c, ['apply', '-f', v1]), `deployment.apps/${name} created\n`, c.label);
      // A change made outside the applied file: apply's three-way merge must keep it.
      await m.ok(c, ['set', 'env', `deployment/${name}`, '-c', 'main', 'LIVE=x']);
      const diff = await m.run(c, ['diff', '-f', v2]);
      assert.equal(diff.status, 1, `${c.label}: ${diff.stderr}`);
      assert.match(diff.stdout, /^-\s+image: nginx:1\.17$/m, c.label);
      assert.match(diff.stdout, /^\+\s+image: nginx:1\.18$/m, c.label);
      assert.match(diff.stdout, /^\+\s+- containerPort: 443$/m, c.label);
      assert.equal(await m.ok(c, ['apply', '-f', v2, '--dry-run=server']), `deployment.apps/${name} configured (server dry run)\n`, c.label);
      assert.equal(((await m.read(`${DEPLOYMENTS}/${name}`)) as Deployment).spec.template.spec.containers[0]?.image, 'nginx:1.17', `${c.label}: dry run persisted`);
      assert.equal(await m.ok(c, ['apply', '-f', v2]), `deployment.apps/${name} configured\n`, c.label);
      const merged = (await m.read(`${DEPLOYMENTS}/${name}`)) as Deployment;
      const [main, side] = merged.spec.template.spec.containers;
      // kube's strategic merge orders by $setElementOrder, placing the item only the server has after them (mergeSortedSlice).
      assert.deepEqual(main?.env, [{ name: 'A', value: '2' }, { name: 'B', value: 'b' }, { name: 'LIVE', value: 'x' }], c.label);
      assert.deepEqual(main?.ports, [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443, protocol: 'TCP' }], c.label);
      assert.equal(main?.image, 'nginx:1.18', c.label);
      assert.deepEqual([side?.name, side?.image], ['side', 'busybox:1.31'], c.label);
      assert.equal(merged.metadata.generation, 3, c.label);
      const lastApplied = JSON.parse(merged.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}') as Deployment;
      assert.equal(lastApplied.spec.template.spec.containers.length, 2, c.label);
      const unchanged = await m.run(c, ['diff', '-f', v2]);
      assert.deepEqual([unchanged.status, unchanged.stdout], [0, ''], `${c.label}: ${unchanged.stderr}`);
    }
  });

  it('apply --server-side records the apply in managedFields and reports conflicts with another manager', async () => {
    for (const c of m.clients) {
      const name = `ssa-${c.tag}`;
      const manifest = (a: string): string => m.file(`${name}-${a}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ${name}}\ndata: {a: "${a}"}\n`);
      assert.equal(await m.ok(c, ['apply', '--server-side', '-f', manifest('1')]), `configmap/${name} serverside-applied\n`, c.label);
      const applied = await m.read(`${CONFIGMAPS}/${name}`);
      assert.deepEqual(applied.metadata.managedFields?.map((f) => [f.manager, f.operation]), [['kubectl', 'Apply']], c.label);
      const conflict = await m.fails(c, ['apply', '--server-side', '--field-manager=other', '-f', manifest('2')]);
      assert.match(conflict, /^error: Apply failed with 1 conflict: conflict with "kubectl": \.data\.a$/m, c.label);
      await m.ok(c, ['apply', '--server-side', '--field-manager=other', '--force-conflicts', '-f', manifest('2')]);
      const forced = (await m.read(`${CONFIGMAPS}/${name}`)) as ConfigMap;
      assert.equal(forced.data['a'], '2', c.label);
      assert.deepEqual(forced.metadata.managedFields?.map((f) => [f.manager, f.operation]), [['other', 'Apply']], c.label);
      const dry = await m.ok(c, ['apply', '--server-side', '--field-manager=other', '--dry-run=server', '-f', manifest('3')]);
      assert.match(dry, /serverside-applied \(server dry run\)/, c.label);
      assert.equal(((await m.read(`${CONFIGMAPS}/${name}`)) as ConfigMap).data['a'], '2', `${c.label}: dry run persisted`);
    }
  });

  it('apply --server-side of a deployment: 1.17\'s key-field refusal, and /scale writes left out of managedFields', async () => {
    for (const c of m.clients) {
      const name = `ssa-app-${c.tag}`;
      // kube 1.16–1.19 refuse a container port without its protocol (a list-map key) in an apply
      // (with a 500 there; a 422 Invalid naming the list here, as the client's mistake it is).
      const unkeyed = await m.fails(c, ['apply', '--server-side', '-f', m.file(`${name}-v1.yaml`, appYaml(name, APP_V1))]);
      assert.equal(unkeyed, `The Deployment "${name}" is invalid: spec.template.spec.containers[name="main"].ports: element 0: associative list with keys has an element that omits key field "protocol"\n`, c.label);
      const manifest = m.file(`${name}-v2.yaml`, appYaml(name, APP_V1.replace('{containerPort: 80}', '{containerPort: 80, protocol: TCP}')));
      assert.equal(await m.ok(c, ['apply', '--server-side', '-f', manifest]), `deployment.apps/${name} serverside-applied\n`, c.label);
      await m.ok(c, ['scale', 'deployment', name, '--replicas=3']);
      await m.ok(c, ['label', 'deployment', name, 'team=edge']);
      const managers = (await m.read(`${DEPLOYMENTS}/${name}`)).metadata.managedFields?.map((f) => [f.manager, f.operation]);
      assert.deepEqual(managers?.filter(([manager]) => manager !== 'before-first-apply'), [['kubectl', 'Apply'], ['kubectl-label', 'Update']], c.label);
      // The apply still owns spec.replicas, so applying again takes it back without a conflict (as in 1.17).
      await m.ok(c, ['apply', '--server-side', '-f', manifest]);
      assert.equal(((await m.read(`${DEPLOYMENTS}/${name}`)) as Deployment).spec.replicas, 1, c.label);
    }
  });

  it('replace, edit, patch (strategic, merge, json), label and annotate change the stored object', async () => {
    for (const c of m.clients) {
      const name = `settings-${c.tag}`;
      const live = await m.ok(c, ['get', 'cm', name, '-o', 'yaml']);
      const replaced = live.replace('mode: fast', 'mode: replaced');
      assert.equal(await m.ok(c, ['replace', '-f', m.file(`${name}-replace.yaml`, replaced)]), `configmap/${name} replaced\n`, c.label);
      assert.equal(await m.ok(c, ['edit', 'cm', name], { env: { EDITOR: 'sed -i s/mode:\\ replaced/mode:\\ edited/', KUBE_EDITOR: '' } }), `configmap/${name} edited\n`, c.label);
      assert.equal(((await m.read(`${CONFIGMAPS}/${name}`)) as ConfigMap).data['mode'], 'edited', c.label);
      const cancelled = await m.run(c, ['edit', 'cm', name], { env: { EDITOR: 'true', KUBE_EDITOR: '' } });
      assert.deepEqual([cancelled.status, cancelled.stderr], [0, 'Edit cancelled, no changes made.\n'], c.label);
      assert.equal(await m.ok(c, ['patch', 'cm', name, '--type', 'merge', '-p', '{"data":{"merged":"1"}}']), `configmap/${name} patched\n`, c.label);
      await m.ok(c, ['patch', 'cm', name, '--type', 'json', '-p', '[{"op":"add","path":"/data/json","value":"2"},{"op":"remove","path":"/data/merged"}]']);
      assert.deepEqual(((await m.read(`${CONFIGMAPS}/${name}`)) as ConfigMap).data, { mode: 'edited', json: '2' }, c.label);
      const web = `web-${c.tag}`;
      await m.ok(c, ['patch', 'deployment', web, '-p', '{"spec":{"template":{"spec":{"containers":[{"name":"side","image":"busybox:1.31"},{"name":"nginx","env":[{"name":"EXTRA","value":"1"}]}]}}}}']);
      const patched = ((await m.read(`${DEPLOYMENTS}/${web}`)) as Deployment).spec.template.spec.containers;
      assert.deepEqual(patched.map((x) => [x.name, x.image, x.env?.map((e) => e.name)]), [['side', 'busybox:1.31', undefined], ['nginx', 'nginx:1.17', ['EXTRA', 'MODE']]], c.label);
      const noop = await m.ok(c, ['patch', 'cm', name, '--type', 'merge', '-p', '{"data":{"json":"2"}}']);
      assert.equal(noop, `configmap/${name} patched (no change)\n`, c.label);
      assert.equal(await m.ok(c, ['label', 'cm', name, 'team=edge', 'tier-']), `configmap/${name} labeled\n`, c.label);
      const relabel = await m.fails(c, ['label', 'cm', name, 'team=core']);
      assert.match(relabel, /'team' already has a value \(edge\), and --overwrite is false/, c.label);
      assert.equal(await m.ok(c, ['annotate', 'cm', name, 'owner=ops', 'note=hello world']), `configmap/${name} annotated\n`, c.label);
      await m.ok(c, ['annotate', 'cm', name, '--overwrite', 'owner=dev', 'note-']);
      const meta = (await m.read(`${CONFIGMAPS}/${name}`)).metadata;
      assert.deepEqual([meta.labels, meta.annotations], [{ team: 'edge' }, { owner: 'dev' }], c.label);
    }
  });

  it('scale (with --current-replicas), set image and rollout restart update deployments and statefulsets', async () => {
    for (const c of m.clients) {
      const web = `web-${c.tag}`;
      assert.equal(await m.ok(c, ['scale', 'deployment', web, '--replicas=3']), `deployment.apps/${web} scaled\n`, c.label);
      const stale = await m.fails(c, ['scale', 'deployment', web, '--current-replicas=2', '--replicas=4']);
      assert.match(stale, /error: Expected replicas to be 2, was 3/, c.label);
      await m.ok(c, ['scale', 'deployment', web, '--current-replicas=3', '--replicas=4']);
      assert.equal(((await m.read(`${DEPLOYMENTS}/${web}`)) as Deployment).spec.replicas, 4, c.label);
      assert.equal(await m.ok(c, ['scale', 'statefulset', `db-${c.tag}`, '--replicas=2']), `statefulset.apps/db-${c.tag} scaled\n`, c.label);
      assert.equal(await m.ok(c, ['get', 'sts', `db-${c.tag}`, '-o', 'jsonpath={.spec.replicas}']), '2', c.label);
      const before = ((await m.read(`${DEPLOYMENTS}/${web}`)) as Deployment).metadata.generation ?? 0;
      assert.equal(await m.ok(c, ['set', 'image', `deployment/${web}`, 'nginx=nginx:1.19']), `deployment.apps/${web} image updated\n`, c.label);
      assert.equal(await m.ok(c, ['rollout', 'restart', `deployment/${web}`]), `deployment.apps/${web} restarted\n`, c.label);
      const after = (await m.read(`${DEPLOYMENTS}/${web}`)) as Deployment;
      assert.equal(after.spec.template.spec.containers.find((x) => x.name === 'nginx')?.image, 'nginx:1.19', c.label);
      assert.match(after.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt'] ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/, c.label);
      assert.equal(after.metadata.generation, before + 2, c.label);
    }
  });

  it('create configmap|secret generic|serviceaccount|deployment|job|cronjob (imperative forms of kubectl 1.20)', async () => {
    // The newest kubectl's forms (protobuf bodies) are the next scenario.
    const [old] = m.clients;
    assert.ok(old);
    const created = [
      await m.ok(old, ['create', 'configmap', 'imp-cm', '--from-literal=a=1', '--from-literal=b=2']),
      await m.ok(old, ['create', 'secret', 'generic', 'imp-secret', '--from-literal=password=s3cret']),
      await m.ok(old, ['create', 'serviceaccount', 'imp-sa']),
      await m.ok(old, ['create', 'deployment', 'imp-deploy', '--image=nginx:1.17']),
      await m.ok(old, ['create', 'job', 'imp-job', '--image=busybox:1.31', '--', 'echo', 'hi']),
      await m.ok(old, ['create', 'cronjob', 'imp-cron', '--image=busybox:1.31', '--schedule=*/10 * * * *', '--', 'date']),
      await m.ok(old, ['create', 'job', 'imp-from-cron', '--from=cronjob/imp-cron']),
    ].join('');
    assert.equal(created, 'configmap/imp-cm created\nsecret/imp-secret created\nserviceaccount/imp-sa created\ndeployment.apps/imp-deploy created\njob.batch/imp-job created\ncronjob.batch/imp-cron created\njob.batch/imp-from-cron created\n');
    assert.deepEqual(((await m.read(`${CONFIGMAPS}/imp-cm`)) as ConfigMap).data, { a: '1', b: '2' });
    assert.deepEqual((await m.read('api/v1/namespaces/default/secrets/imp-secret'))['data'], { password: 'czNjcmV0' });
    const deploy = (await m.read(`${DEPLOYMENTS}/imp-deploy`)) as Deployment;
    assert.deepEqual([deploy.metadata.labels, deploy.spec.replicas, deploy.spec.template.spec.containers[0]?.name], [{ app: 'imp-deploy' }, 1, 'nginx'], 'kubectl names the container after the image');
    const fromCron = await m.read('apis/batch/v1/namespaces/default/jobs/imp-from-cron');
    assert.deepEqual([fromCron.metadata.annotations?.['cronjob.kubernetes.io/instantiate'], fromCron.metadata.ownerReferences?.[0]?.name], ['manual', 'imp-cron']);
  });

  it('create configmap|secret generic|serviceaccount|deployment|job with the newest kubectl (protobuf bodies)', async () => {
    // kubectl ≥ 1.32 sends these typed creates as application/vnd.kubernetes.protobuf.
    const newest = m.clients[1];
    assert.ok(newest);
    const created = [
      await m.ok(newest, ['create', 'configmap', 'pb-cm', '--from-literal=a=b']),
      await m.ok(newest, ['create', 'secret', 'generic', 'pb-secret', '--from-literal=password=s3cret', '--from-file=bin=' + m.file('pb-bin', '\u0000\u00ff\n')]),
      await m.ok(newest, ['create', 'serviceaccount', 'pb-sa']),
      await m.ok(newest, ['create', 'deployment', 'pb-deploy', '--image=nginx', '--replicas=0']),
      await m.ok(newest, ['create', 'job', 'pb-job', '--image=busybox', '--', 'echo', 'hi']),
    ].join('');
    assert.equal(created, 'configmap/pb-cm created\nsecret/pb-secret created\nserviceaccount/pb-sa created\ndeployment.apps/pb-deploy created\njob.batch/pb-job created\n');
    const cm = (await m.read(`${CONFIGMAPS}/pb-cm`)) as ConfigMap;
    assert.deepEqual([cm.data, typeof cm.metadata.creationTimestamp, cm.metadata.generateName], [{ a: 'b' }, 'string', undefined]);
    assert.deepEqual((await m.read('api/v1/namespaces/default/secrets/pb-secret'))['data'], { password: 'czNjcmV0', bin: Buffer.from('\u0000\u00ff\n').toString('base64') });
    assert.equal((await m.read('api/v1/namespaces/default/serviceaccounts/pb-sa')).metadata.name, 'pb-sa');
    const deploy = (await m.read(`${DEPLOYMENTS}/pb-deploy`)) as Deployment & { spec: { strategy: unknown } };
    assert.deepEqual(
      [deploy.metadata.labels, deploy.spec.replicas, deploy.spec.template.spec.containers[0]?.name, deploy.spec.strategy],
      [{ app: 'pb-deploy' }, 0, 'nginx', { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } }],
    );
    const job = (await m.read('apis/batch/v1/namespaces/default/jobs/pb-job')) as KubeObject & { spec: { backoffLimit: number; template: { spec: { restartPolicy: string; containers: Container[] } } } };
    assert.deepEqual([job.spec.backoffLimit, job.spec.template.spec.restartPolicy, job.spec.template.spec.containers[0]?.image], [6, 'Never', 'busybox']);
    // Its `create cronjob` posts to batch/v1, which 1.17 does not serve.
    const cron = await m.fails(newest, ['create', 'cronjob', 'pb-cron', '--image=busybox', '--schedule=*/10 * * * *']);
    assert.match(cron, /the server could not find the requested resource/);
  });

  it('delete by name, -l and --all removes objects; cascading deletes complete', async () => {
    for (const c of m.clients) {
      const t = c.tag;
      for (const n of ['a', 'b', 'c']) await m.ok(c, ['create', '-f', m.file(`del-${n}-${t}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: del-${n}-${t}, labels: {batch: del-${t}, item: ${n}}}\n`)]);
      assert.equal(await m.ok(c, ['delete', 'cm', `del-a-${t}`]), `configmap "del-a-${t}" deleted\n`, c.label);
      assert.equal(await m.ok(c, ['delete', 'cm', '-l', `batch=del-${t},item=b`]), `configmap "del-b-${t}" deleted\n`, c.label);
      assert.equal(await m.ok(c, ['get', 'cm', '-l', `batch=del-${t}`, '-o', 'name']), `configmap/del-c-${t}\n`, c.label);
      assert.equal(await m.ok(c, ['delete', 'svc', `web-${t}`]), `service "web-${t}" deleted\n`, c.label);
      assert.equal(await m.ok(c, ['delete', 'job', `once-${t}`]), `job.batch "once-${t}" deleted\n`, c.label);
      // The garbage collector finishes Foreground and Orphan deletions (it removes kube's finalizer); kubectl waits for it.
      assert.equal(await m.ok(c, ['delete', 'deployment', `web-${t}`, '--cascade=foreground']), `deployment.apps "web-${t}" deleted\n`, c.label);
      assert.match((await m.run(c, ['get', 'deployment', `web-${t}`])).stderr, /\(NotFound\)/, c.label);
      await m.ok(c, ['delete', 'statefulset', `db-${t}`, '--cascade=orphan']);
      assert.match((await m.run(c, ['get', 'statefulset', `db-${t}`])).stderr, /\(NotFound\)/, c.label);
      const missing = await m.run(c, ['get', 'svc', `web-${t}`]);
      assert.match(missing.stderr, new RegExp(`Error from server \\(NotFound\\): services "web-${t}" not found`), c.label);
    }
    const [old] = m.clients;
    assert.ok(old);
    const all = await m.ok(old, ['delete', 'secrets', '--all']);
    assert.match(all, /^secret "creds-old" deleted$/m);
    assert.match(all, /^secret "creds-new" deleted$/m);
    assert.equal((await m.run(old, ['get', 'secrets'])).stderr, 'No resources found in default namespace.\n');
  });
});
