import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startKubectlMatrix, type KubectlMatrix } from './support/kubectl-matrix.js';

const deployment = (name: string, replicas: number, templateApp = name): string => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: ${replicas}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${templateApp}}}
    spec:
      containers: [{name: c, image: nginx:1.17}]
`;

/** What kubectl prints for each of kube-apiserver's refusals, with both kubectls. */
describe('kubectl 1.20 and the newest kubectl print kube-apiserver\'s errors', () => {
  let m: KubectlMatrix;
  before(async () => {
    m = await startKubectlMatrix();
  });
  after(async () => {
    await m?.close();
  });

  it('NotFound, AlreadyExists and Conflict on a stale replace', async () => {
    for (const c of m.clients) {
      assert.equal(await m.fails(c, ['get', 'deployment', 'nope']), 'Error from server (NotFound): deployments.apps "nope" not found\n', c.label);
      assert.equal(await m.fails(c, ['delete', 'configmap', 'nope']), 'Error from server (NotFound): configmaps "nope" not found\n', c.label);
      const file = m.file(`dup-${c.tag}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dup-${c.tag}}\ndata: {a: "1"}\n`);
      await m.ok(c, ['create', '-f', file]);
      assert.equal(await m.fails(c, ['create', '-f', file]), `Error from server (AlreadyExists): error when creating "${file}": configmaps "dup-${c.tag}" already exists\n`, c.label);
      const stale = m.file(`stale-${c.tag}.yaml`, await m.ok(c, ['get', 'cm', `dup-${c.tag}`, '-o', 'yaml']));
      await m.ok(c, ['label', 'cm', `dup-${c.tag}`, 'changed=yes']);
      assert.equal(
        await m.fails(c, ['replace', '-f', stale]),
        `Error from server (Conflict): error when replacing "${stale}": Operation cannot be fulfilled on configmaps "dup-${c.tag}": the object has been modified; please apply your changes to the latest version and try again\n`,
        c.label,
      );
    }
  });

  it('Invalid, one line per cause', async () => {
    for (const c of m.clients) {
      const web = `web-${c.tag}`;
      await m.ok(c, ['create', '-f', m.file(`${web}.yaml`, deployment(web, 1))]);
      assert.equal(
        await m.fails(c, ['patch', 'deployment', web, '-p', '{"spec":{"replicas":-1}}']),
        `The Deployment "${web}" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0\n`,
        c.label,
      );
      const bad = m.file(`bad-${c.tag}.yaml`, deployment(`bad-${c.tag}`, -2, 'other'));
      assert.equal(
        await m.fails(c, ['create', '-f', bad]),
        `The Deployment "bad-${c.tag}" is invalid: \n` +
          '* spec.replicas: Invalid value: -2: must be greater than or equal to 0\n' +
          `* spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: \`selector\` does not match template \`labels\`\n`,
        c.label,
      );
      // edit: the refusal, the copy kept, and the edit given up (sed makes the same invalid change again).
      const edit = await m.fails(c, ['edit', 'deployment', web], { env: { EDITOR: 'sed -i s/replicas:\\ 1$/replicas:\\ -1/', KUBE_EDITOR: '', TMPDIR: m.dir } });
      assert.match(edit, new RegExp(`^error: deployments.apps "${web}" is invalid\nA copy of your changes has been stored to ".*"\nerror: Edit cancelled, no valid changes were saved.\n$`), c.label);
      const name = await m.fails(c, ['create', '-f', m.file(`name-${c.tag}.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n')]);
      assert.match(name, /^The ConfigMap "Bad_Name" is invalid: metadata\.name: Invalid value: "Bad_Name": a DNS-1123 subdomain must consist of lower case alphanumeric characters, '-' or '\.', and must start and end with an alphanumeric character/, c.label);
    }
  });

  it('client-side validation against the served OpenAPI, and --validate=false (1.17 drops unknown fields)', async () => {
    for (const c of m.clients) {
      const file = m.file(`unknown-${c.tag}.yaml`, `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: unknown-${c.tag}}\nbogus: 1\ndata: {a: "1"}\n`);
      assert.equal(
        await m.fails(c, ['create', '-f', file]),
        `error: error validating "${file}": error validating data: ValidationError(ConfigMap): unknown field "bogus" in io.k8s.api.core.v1.ConfigMap; if you choose to ignore these errors, turn validation off with --validate=false\n`,
        c.label,
      );
      assert.equal(await m.ok(c, ['create', '-f', file, '--validate=false']), `configmap/unknown-${c.tag} created\n`, c.label);
      assert.equal(await m.ok(c, ['get', 'cm', `unknown-${c.tag}`, '-o', 'jsonpath={.bogus}{.data.a}']), '1', c.label);
    }
  });

  it('Forbidden for another namespace', async () => {
    for (const c of m.clients) {
      const why = ': this virtual cluster has only the namespace "default"\n';
      assert.equal(
        await m.fails(c, ['get', 'configmaps', '-n', 'other']),
        `Error from server (Forbidden): configmaps is forbidden: User "kube-vk1@acme" cannot list resource "configmaps" in API group "" in the namespace "other"${why}`,
        c.label,
      );
      assert.equal(
        await m.fails(c, ['get', 'deployment', 'web', '-n', 'other']),
        `Error from server (Forbidden): deployments.apps "web" is forbidden: User "kube-vk1@acme" cannot get resource "deployments" in API group "apps" in the namespace "other"${why}`,
        c.label,
      );
      const file = m.file(`other-${c.tag}.yaml`, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
      assert.equal(
        await m.fails(c, ['create', '-f', file, '-n', 'other']),
        `Error from server (Forbidden): error when creating "${file}": configmaps is forbidden: User "kube-vk1@acme" cannot create resource "configmaps" in API group "" in the namespace "other"${why}`,
        c.label,
      );
      assert.equal(
        await m.fails(c, ['scale', 'deployment', 'web', '--replicas=2', '-n', 'other']),
        c.tag === 'old'
          ? `Error from server (Forbidden): deployments.apps "web" is forbidden: User "kube-vk1@acme" cannot get resource "deployments" in API group "apps" in the namespace "other"${why}`
          : `error: no objects passed to scale deployments.apps "web" is forbidden: User "kube-vk1@acme" cannot get resource "deployments" in API group "apps" in the namespace "other"${why}`,
        c.label,
      );
    }
  });

  it('MethodNotAllowed for what the seed does not list: writing pods, deployments across namespaces', async () => {
    for (const c of m.clients) {
      assert.equal(await m.fails(c, ['delete', 'pod', 'x']), 'Error from server (MethodNotAllowed): delete is not supported on resources of kind "pods"\n', c.label);
      const pod = m.file(`pod-${c.tag}.yaml`, 'apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, image: busybox}]\n');
      assert.equal(await m.fails(c, ['create', '-f', pod]), `Error from server (MethodNotAllowed): error when creating "${pod}": create is not supported on resources of kind "pods"\n`, c.label);
      assert.equal(await m.fails(c, ['get', 'deployments', '-A']), 'Error from server (MethodNotAllowed): list is not supported on resources of kind "deployments.apps"\n', c.label);
      assert.equal(await m.fails(c, ['get', 'configmaps', '--all-namespaces']), 'Error from server (MethodNotAllowed): list is not supported on resources of kind "configmaps"\n', c.label);
    }
  });

  it('Unauthorized with a bad token', async () => {
    for (const c of m.clients) {
      assert.equal(await m.fails(c, ['--token=ep1.bogus', 'get', 'configmaps']), 'error: You must be logged in to the server (Unauthorized)\n', c.label);
    }
  });
});
