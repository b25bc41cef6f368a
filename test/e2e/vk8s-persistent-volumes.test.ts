import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { parseTable } from './support/kubectl-matrix.js';
import { startMultisiteEnv, type MultisiteEnv } from './support/multisite-env.js';
import { waitFor } from './support/wait-for.js';

const CLAIM = `apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 3Gi}}
`;

type Volume = KubeObject & { spec: Record<string, unknown>; status: { phase: string } };

/** Dynamic provisioning as kubectl sees it: a claim gets a Bound PersistentVolume on its sites, deleted with the claim. */
describe('vK8s PersistentVolumes through kubectl', () => {
  let env: MultisiteEnv;
  before(async () => {
    env = await startMultisiteEnv();
  });
  after(async () => {
    await env?.close();
  });

  it('a claim gets a Bound PersistentVolume pvc-<uid> on the sites it is placed on, and loses it when deleted', async () => {
    const c = env.kubectl;
    await env.apply(c, CLAIM);
    const claim = await waitFor('the claim Bound', async () => {
      const read = await env.read<KubeObject & { status?: { phase?: string } }>('api/v1/namespaces/default/persistentvolumeclaims/data');
      return read?.status?.phase === 'Bound' ? read : undefined;
    });
    const name = `pvc-${claim.metadata.uid ?? ''}`;
    const rows = parseTable(await env.ok(c, ['get', 'pv']));
    assert.deepEqual(
      rows.map((r) => [r['NAME'], r['CAPACITY'], r['ACCESS MODES'], r['RECLAIM POLICY'], r['STATUS'], r['CLAIM'], r['STORAGECLASS']]),
      [[name, '3Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'local']],
    );
    assert.equal(parseTable(await env.ok(c, ['get', 'pvc', 'data']))[0]?.['VOLUME'], name);
    const volume = parse(await env.ok(c, ['get', 'pv', name, '-o', 'yaml'])) as Volume;
    assert.equal(volume.metadata.annotations?.['pv.kubernetes.io/provisioned-by'], 'edgeplane.io/site-local');
    assert.deepEqual(volume.spec['claimRef'], { kind: 'PersistentVolumeClaim', namespace: 'default', name: 'data', uid: claim.metadata.uid, apiVersion: 'v1', resourceVersion: (volume.spec['claimRef'] as { resourceVersion: string }).resourceVersion });
    assert.deepEqual(volume.spec['local'], { path: `/persistent-volumes/${name}` });
    assert.deepEqual(volume.spec['nodeAffinity'], { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/siteName', operator: 'In', values: ['re-a', 're-b'] }] }] } });
    assert.equal(volume.spec['volumeMode'], 'Filesystem');
    assert.equal(volume.status.phase, 'Bound');
    // The node affinity selects the sites' nodes as the vK8s shows them.
    const nodes = parseTable(await env.ok(c, ['get', 'nodes', '-l', 'svc.io/siteName in (re-a,re-b)'])).map((r) => r['NAME']);
    assert.deepEqual(nodes, ['re-a-n0', 're-b-n0']);
    const forbidden = await env.run(c, ['delete', 'pv', name]);
    assert.notEqual(forbidden.status, 0, 'users cannot delete a PersistentVolume');

    await env.ok(c, ['delete', 'pvc', 'data']);
    await waitFor('the volume deleted with its claim', async () => ((await env.read(`api/v1/persistentvolumes/${name}`)) === undefined ? true : undefined));
    assert.equal((await env.ok(c, ['get', 'pv', '-o', 'name'])).trim(), '');
  });
});
