import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { parseTable } from './support/kubectl-matrix.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, annotations: {svc.io/sites: system/ce-a}}
spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`;

const WRITER = `apiVersion: apps/v1
kind: Deployment
metadata: {name: writer, annotations: {svc.io/sites: system/ce-a}}
spec:
  replicas: 1
  selector: {matchLabels: {app: writer}}
  template:
    metadata: {labels: {app: writer}}
    spec:
      terminationGracePeriodSeconds: 1
      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
      containers:
      - name: c
        image: host
        command: [sh, -c, "echo kept > /data/file && exec sleep 3600"]
        volumeMounts: [{name: data, mountPath: /data}]
`;

type Pod = KubeObject & { status?: { phase?: string } };

/** A claim's data on a runc site: in the folder its PersistentVolume names, kept across pods and agent restarts, removed with the claim. */
describe('persistent volumes on a runc site', () => {
  let env: RuncSiteEnv;
  before(async () => {
    env = await startRuncSiteEnv([{ name: 'ce-a', hostImage: true }], { claimSweepMs: 200 });
  });
  after(async () => {
    await env?.close();
  });

  it('a pod writes into its claim\'s folder; the data outlives the pod and an agent restart, and goes with the claim', async () => {
    await env.ok(['apply', '-f', '-'], CLAIM);
    const claim = await waitFor('the claim Bound', async () => {
      const read = await env.read<KubeObject & { status?: { phase?: string } }>('api/v1/namespaces/default/persistentvolumeclaims/data');
      return read?.status?.phase === 'Bound' ? read : undefined;
    });
    const volumeName = `pvc-${claim.metadata.uid ?? ''}`;
    const pv = parseTable(await env.ok(['get', 'pv']));
    assert.deepEqual(pv.map((r) => [r['NAME'], r['STATUS'], r['CLAIM']]), [[volumeName, 'Bound', 'default/data']]);
    const folder = join(env.home('ce-a'), 'runc', 'ce-a', 'persistent-volumes', volumeName);
    assert.equal(await env.ok(['get', 'pv', volumeName, '-o', 'jsonpath={.spec.local.path}']), `/persistent-volumes/${volumeName}`);

    await env.ok(['apply', '-f', '-'], WRITER);
    await waitFor('the pod wrote into its claim', () => Promise.resolve(existsSync(join(folder, 'file')) ? true : undefined), { timeoutMs: 60_000 });
    assert.equal(readFileSync(join(folder, 'file'), 'utf8'), 'kept\n');

    await env.ok(['delete', 'deployment', 'writer']);
    await waitFor('the pod gone', async () => (((await env.read<{ items: Pod[] }>('api/v1/namespaces/default/pods'))?.items.length ?? 1) === 0 ? true : undefined), { timeoutMs: 60_000 });
    await waitFor('nothing of the pod left', () => Promise.resolve(podLeftovers(env, 'ce-a').length === 0 ? true : undefined), { timeoutMs: 30_000 });
    await env.restartAgent('ce-a');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(readFileSync(join(folder, 'file'), 'utf8'), 'kept\n', 'the data of a claim that exists outlives its pod and the agent\'s restart');

    await env.ok(['delete', 'pvc', 'data']);
    await waitFor('the volume deleted', async () => ((await env.read(`api/v1/persistentvolumes/${volumeName}`)) === undefined ? true : undefined));
    await waitFor('the claim\'s folder removed', () => Promise.resolve(existsSync(folder) ? undefined : true), { timeoutMs: 30_000 });
    assert.deepEqual(podLeftovers(env, 'ce-a'), []);
  });
});
