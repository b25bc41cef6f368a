import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { parseTable } from './support/kubectl-matrix.js';
import { startMultisiteEnv, type MultisiteEnv } from './support/multisite-env.js';
import { deploymentYaml, siteOf } from './support/multisite-objects.js';

interface Mount {
  name: string;
  mountPath: string;
  readOnly?: boolean;
}
interface Container {
  name: string;
  image: string;
  imagePullPolicy?: string;
  resources?: unknown;
  securityContext?: unknown;
  volumeMounts?: Mount[];
}
type Pod = KubeObject & {
  spec: { nodeName?: string; containers: Container[]; initContainers?: Container[]; volumes?: Array<{ name: string; emptyDir?: unknown }> };
  status?: { qosClass?: string };
};

const IDENTITY_RO: Mount = { name: 'edgeplane-identity', mountPath: '/svc/secrets/identity', readOnly: true };

/**
 * Issue 21, the control plane's half of the sidecar: regional edge re-a registers as a runc
 * site (its agent still runs the simulated runtime), re-b as a simulated one. Pods bound on
 * re-a get the workload sidecar injected, visible through kubectl as on the real platform.
 */
describe('workload sidecar injected into pods on runc sites, through kubectl', () => {
  let env: MultisiteEnv;
  before(async () => {
    env = await startMultisiteEnv({ registerRuntimes: { 're-a': { runtime: 'runc', version: '1.1.5' } } });
  });
  after(async () => {
    await env?.close();
  });

  it('the runc site\'s Node shows its runtime; the simulated one\'s what it always did', async () => {
    const nodes = parseTable(await env.ok(env.kubectl, ['get', 'nodes', '-o', 'wide']));
    const runtimeOf = (name: string): string | undefined => nodes.find((n) => n['NAME'] === name)?.['CONTAINER-RUNTIME'];
    assert.deepEqual([runtimeOf('re-a-n0'), runtimeOf('re-b-n0')], ['runc://1.1.5', 'simulated://1.0.0']);
  });

  it('pods on the runc site get the sidecar, its volume and the read-only identity mount; READY counts 2/2; simulated pods are as written', async () => {
    const initContainer = `      initContainers:
      - name: setup
        image: busybox
`;
    await env.apply(env.kubectl, deploymentYaml('web', { replicas: 1, container: initContainer }));
    const pods = await env.settled('app=web', { 're-a': 1, 're-b': 1 });
    const yaml = await env.ok(env.kubectl, ['get', 'pods', '-l', 'app=web', '-o', 'yaml']);
    assert.match(yaml, /name: edgeplane-sidecar/);
    assert.match(yaml, /mountPath: \/svc\/secrets\/identity/);
    assert.match(yaml, /svc\.io\/sidecar-injected: "true"/);

    const listed = (await env.json<{ items: Pod[] }>(env.kubectl, ['get', 'pods', '-l', 'app=web'])).items;
    assert.equal(listed.length, pods.length);
    const onRunc = listed.find((p) => siteOf(p) === 're-a') as Pod;
    const onSim = listed.find((p) => siteOf(p) === 're-b') as Pod;
    assert.deepEqual(onRunc.spec.containers.map((c) => c.name), ['web', 'edgeplane-sidecar']);
    const sidecar = onRunc.spec.containers[1] as Container;
    assert.match(sidecar.image, /^edgeplane\/sidecar:\S+$/);
    assert.deepEqual(
      { pull: sidecar.imagePullPolicy, resources: sidecar.resources, securityContext: sidecar.securityContext, mounts: sidecar.volumeMounts },
      {
        pull: 'Never',
        resources: { limits: { memory: '160Mi' }, requests: { cpu: '10m', memory: '48Mi' } },
        securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
        mounts: [{ name: 'edgeplane-identity', mountPath: '/svc/secrets/identity' }],
      },
    );
    assert.deepEqual(onRunc.spec.containers[0]?.volumeMounts?.at(-1), IDENTITY_RO);
    assert.deepEqual(onRunc.spec.initContainers?.[0]?.volumeMounts?.at(-1), IDENTITY_RO);
    assert.deepEqual(onRunc.spec.volumes?.find((v) => v.name === 'edgeplane-identity'), { name: 'edgeplane-identity', emptyDir: { medium: 'Memory' } });

    assert.deepEqual(onSim.spec.containers.map((c) => c.name), ['web']);
    assert.equal(onSim.metadata.annotations?.['svc.io/sidecar-injected'], undefined);
    assert.equal(onSim.spec.volumes?.some((v) => v.name === 'edgeplane-identity') ?? false, false);

    const table = parseTable(await env.ok(env.kubectl, ['get', 'pods', '-l', 'app=web']));
    const ready = new Map(table.map((row) => [row['NAME'] ?? '', row['READY'] ?? '']));
    assert.deepEqual([ready.get(onRunc.metadata.name ?? ''), ready.get(onSim.metadata.name ?? '')], ['2/2', '1/1']);
  });

  it('a workload whose pods would have a container named like the sidecar or a mount at its path is refused with 422', async () => {
    const named = await env.run(env.kubectl, ['apply', '-f', '-'], { input: deploymentYaml('mine').replace('- name: web', '- name: edgeplane-sidecar') });
    assert.notEqual(named.status, 0);
    assert.match(named.stderr, /spec\.template\.spec\.containers\[0\]\.name: Invalid value: "edgeplane-sidecar": is reserved for the workload sidecar the platform injects/);
    const mount = `        volumeMounts: [{name: ids, mountPath: /svc/secrets/identity}]
      volumes: [{name: ids, emptyDir: {}}]
`;
    const mounted = await env.run(env.kubectl, ['apply', '-f', '-'], { input: deploymentYaml('mine', { container: mount }) });
    assert.notEqual(mounted.status, 0);
    assert.match(mounted.stderr, /spec\.template\.spec\.containers\[0\]\.volumeMounts\[0\]\.mountPath: Invalid value: "\/svc\/secrets\/identity": is reserved/);
    assert.equal((await env.run(env.kubectl, ['get', 'deployment', 'mine'])).status, 1, 'nothing was created');
  });
});
