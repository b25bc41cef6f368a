import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { kubectl120, kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';

const BASE = '/api/vk8s/namespaces/default/vk1';
const CM = `${BASE}/api/v1/namespaces/default/configmaps`;
const DEPLOY = `${BASE}/apis/apps/v1/namespaces/default/deployments`;
const JOBS = `${BASE}/apis/batch/v1/namespaces/default/jobs`;
const CREDS = '/api/web/namespaces/system/api_credentials';
const MERGE = { 'content-type': 'application/merge-patch+json' };

interface OwnerRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  blockOwnerDeletion?: boolean;
  controller?: boolean;
}
interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; uid: string; deletionTimestamp?: string; finalizers?: string[]; ownerReferences?: OwnerRef[] };
}

const deployment = (name: string): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx:1.17' }] } } },
});
const job = (name: string): Record<string, unknown> => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name },
  spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'pi', image: 'perl' }] } } },
});

/** Polls `check` until it holds (the garbage collector works asynchronously). */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('virtual cluster garbage collection over HTTPS', () => {
  let h: ConfigHarness;
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-gc-'));
  const kubeconfig = join(dir, 'kubeconfig');

  const create = async (path: string, body: Record<string, unknown>): Promise<Obj> => {
    const res = await h.call('POST', path, { body });
    assert.equal(res.status, 201, res.body);
    return res.json<Obj>();
  };
  const refTo = (owner: Obj, extra: Partial<OwnerRef> = {}): OwnerRef => ({ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.metadata.name, uid: owner.metadata.uid, ...extra });
  /** A Deployment and ConfigMaps naming it as their owner. */
  const family = async (name: string, dependents: number, extra: Partial<OwnerRef> = {}, finalizers?: string[]): Promise<Obj> => {
    const owner = await create(DEPLOY, deployment(name));
    for (let i = 1; i <= dependents; i++) {
      await create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${name}-${i}`, ownerReferences: [refTo(owner, extra)], ...(i === 1 && finalizers !== undefined ? { finalizers } : {}) } });
    }
    return owner;
  };
  const get = async (path: string): Promise<Obj | undefined> => {
    const res = await h.call('GET', path);
    if (res.status === 404) return undefined;
    assert.equal(res.status, 200, res.body);
    return res.json<Obj>();
  };
  const gone = (path: string) => async (): Promise<boolean> => (await get(path)) === undefined;

  before(async () => {
    h = await startConfigHarness();
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const res = await h.call('POST', CREDS, { body: { name: 'kube-gc', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } } });
    assert.equal(res.status, 200, res.body);
    writeFileSync(kubeconfig, Buffer.from(res.json<{ data: string }>().data, 'base64'));
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('DELETE with propagationPolicy Background removes the owner at once and its dependents after', async () => {
    await family('bg', 2);
    const res = await h.call('DELETE', `${DEPLOY}/bg`, { body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' } });
    assert.equal(res.status, 200, res.body);
    assert.equal(await get(`${DEPLOY}/bg`), undefined);
    await eventually('the dependents are gone', async () => (await gone(`${CM}/bg-1`)()) && (await gone(`${CM}/bg-2`)()));
  });

  it('DELETE with propagationPolicy Orphan removes the owner and keeps its dependents without the reference', async () => {
    await family('orph', 2, { controller: true, blockOwnerDeletion: true });
    const res = await h.call('DELETE', `${DEPLOY}/orph?propagationPolicy=Orphan`);
    assert.equal(res.status, 200, res.body);
    await eventually('the owner is gone', gone(`${DEPLOY}/orph`));
    for (const name of ['orph-1', 'orph-2']) assert.equal((await get(`${CM}/${name}`))?.metadata.ownerReferences, undefined, name);
  });

  it('DELETE with propagationPolicy Foreground keeps the owner marked until its blocking dependents are gone', async () => {
    await family('fg', 2, { blockOwnerDeletion: true }, ['example.com/hold']);
    const res = await h.call('DELETE', `${DEPLOY}/fg`, { body: { propagationPolicy: 'Foreground' } });
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json<Obj>().metadata.finalizers, ['foregroundDeletion']);
    await eventually('the free dependent is gone', gone(`${CM}/fg-2`));
    await eventually('the held dependent is marked', async () => (await get(`${CM}/fg-1`))?.metadata.deletionTimestamp !== undefined);
    const waiting = await get(`${DEPLOY}/fg`);
    assert.ok(waiting?.metadata.deletionTimestamp, 'the owner waits, marked for deletion');
    assert.deepEqual(waiting.metadata.finalizers, ['foregroundDeletion']);
    const released = await h.call('PATCH', `${CM}/fg-1`, { body: { metadata: { finalizers: null } }, headers: MERGE });
    assert.equal(released.status, 200, released.body);
    await eventually('the owner goes after its dependents', gone(`${DEPLOY}/fg`));
  });

  it('DELETE of a Job without a policy orphans its dependents (batch/v1 default in 1.17)', async () => {
    const owner = await create(JOBS, job('j1'));
    await create(CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'j1-cm', ownerReferences: [refTo(owner, { controller: true, blockOwnerDeletion: true })] } });
    assert.equal((await h.call('DELETE', `${JOBS}/j1`)).status, 200);
    await eventually('the job is gone', gone(`${JOBS}/j1`));
    assert.equal((await get(`${CM}/j1-cm`))?.metadata.ownerReferences, undefined);
  });

  it('kubectl delete --cascade behaves the same with kubectl 1.20 and the newest kubectl', async () => {
    const cases: Array<{ binary: string; label: string; cascade: string; kept: boolean }> = [
      { binary: kubectl120(), label: 'k120-bg', cascade: 'true', kept: false },
      { binary: kubectl120(), label: 'k120-or', cascade: 'false', kept: true },
      { binary: kubectlNewest(), label: 'new-bg', cascade: 'background', kept: false },
      { binary: kubectlNewest(), label: 'new-fg', cascade: 'foreground', kept: false },
      { binary: kubectlNewest(), label: 'new-or', cascade: 'orphan', kept: true },
    ];
    for (const c of cases) {
      await family(c.label, 2, { blockOwnerDeletion: true });
      const run = await runKubectl(c.binary, ['delete', 'deployment', c.label, `--cascade=${c.cascade}`], { kubeconfig, cacheDir: join(dir, 'cache') });
      assert.equal(run.status, 0, `${c.label}: ${run.stderr}`);
      assert.match(run.stdout, new RegExp(`deployment.apps "${c.label}" deleted`), c.label);
      await eventually(`${c.label}: the deployment is gone`, gone(`${DEPLOY}/${c.label}`));
      if (c.kept) {
        for (const i of [1, 2]) assert.equal((await get(`${CM}/${c.label}-${i}`))?.metadata.ownerReferences, undefined, `${c.label}-${i} is orphaned`);
      } else {
        await eventually(`${c.label}: the dependents are gone`, async () => (await gone(`${CM}/${c.label}-1`)()) && (await gone(`${CM}/${c.label}-2`)()));
      }
    }
  });
});
