import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { deploymentController } from '../../src/controllers/deployment/deployment-controller.js';
import { startControllerManager, type ControllerManager } from '../../src/controllers/manager/controller-manager.js';
import { replicaSetController } from '../../src/controllers/replicaset/replica-set-controller.js';
import { isPodActive, isPodReady, podStatusOf } from '../../src/controllers/runtime/pod-state.js';
import { FakePlacement, FakeSites, labelOnlyTemplateFor, testCluster } from '../../src/controllers/testing/controller-harness.js';
import { createLogger } from '../../src/observability/logger.js';
import type { GenericStore, RequestScope } from '../../src/registry/generic-store.js';
import type { ClusterRef } from '../../src/apimachinery/cluster-ref.js';
import { systemClock } from '../../src/common/clock.js';
import { kubectl120, runKubectl, type KubectlRun } from '../../src/vk8s/testing/kubectl.js';

const CREDS = '/api/web/namespaces/system/api_credentials';
const SITES = ['ce-lyon', 're-paris', 're-tokyo'];

const manifest = (image: string): string => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ${image}
`;

/**
 * kubectl 1.20's rollout commands against the vK8s with the Deployment and ReplicaSet
 * controllers on three (fake) sites; pods become ready as a site would report them.
 */
describe('kubectl rollout over three sites', () => {
  let h: ConfigHarness;
  let manager: ControllerManager;
  let pods: GenericStore;
  let scope: RequestScope;
  let sitesReport: ReturnType<typeof setInterval> | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-rollout-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const kubectl = (args: readonly string[], input?: string): Promise<KubectlRun> =>
    runKubectl(kubectl120(), args, { kubeconfig, cacheDir: join(dir, 'cache'), ...(input === undefined ? {} : { input }) });
  const ok = async (args: readonly string[], input?: string): Promise<string> => {
    const run = await kubectl(args, input);
    assert.equal(run.status, 0, `kubectl ${args.join(' ')}: ${run.stderr}`);
    return run.stdout;
  };

  before(async () => {
    // This file runs its own controller manager over fake sites: the control plane runs none.
    h = await startConfigHarness({ controllers: [] });
    const created = await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } });
    assert.equal(created.status, 200, created.body);
    const tenant = created.json<{ system_metadata: { tenant: string } }>().system_metadata.tenant;
    const cluster: ClusterRef = { ...testCluster, tenant };
    const res = await h.call('POST', CREDS, { body: { name: 'kube-rollout', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } } });
    assert.equal(res.status, 200, res.body);
    writeFileSync(kubeconfig, Buffer.from(res.json<{ data: string }>().data, 'base64'));
    const placement = new FakePlacement([cluster]);
    placement.place(SITES);
    const storage = h.controlPlane.virtualClusters;
    manager = await startControllerManager({
      store: h.controlPlane.store,
      storage,
      placement,
      podTemplateFor: labelOnlyTemplateFor,
      events: { record: () => {} },
      sites: new FakeSites(),
      clock: systemClock(),
      logger: createLogger({ level: 'silent' }),
      controllers: [deploymentController(), replicaSetController()],
    });
    pods = storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;
    scope = { cluster, dryRun: false, fieldManager: 'test-site' };
    // What the sites would do: report every new pod Running and Ready.
    sitesReport = setInterval(() => {
      void (async () => {
        for (const pod of (await pods.list(cluster, {})).items) {
          if (!isPodActive(pod) || isPodReady(pod)) continue;
          const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
          await pods
            .update(scope, pod.metadata.name ?? '', (live) => ({ ...live, status: { ...podStatusOf(live), phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }), { subresource: 'status' })
            .catch(() => undefined);
        }
      })();
    }, 100);
  });
  after(async () => {
    clearInterval(sitesReport);
    await manager?.stop();
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl rollout status completes once every site runs the Deployment', async () => {
    await ok(['apply', '-f', '-'], manifest('nginx:1.19'));
    const status = await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']);
    assert.match(status, /deployment "web" successfully rolled out/);
    const rs = await ok(['get', 'replicasets', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.labels.svc\\.io/siteName} {.status.readyReplicas}{"\\n"}{end}']);
    assert.deepEqual(rs.trim().split('\n').sort(), SITES.map((s) => `${s} 2`));
    const deploy = await ok(['get', 'deployment', 'web', '-o', 'jsonpath={.status.readyReplicas}/{.status.replicas}']);
    assert.equal(deploy, '6/6');
  });

  it('kubectl set image rolls out on every site; rollout history lists both revisions; undo goes back', async () => {
    await ok(['set', 'image', 'deployment/web', 'web=nginx:1.20']);
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out/);
    const history = await ok(['rollout', 'history', 'deployment/web']);
    assert.match(history, /REVISION\s+CHANGE-CAUSE\n1\s+<none>\n2\s+<none>/);
    assert.match(await ok(['rollout', 'history', 'deployment/web', '--revision=1']), /Image:\s+nginx:1\.19/);
    assert.match(await ok(['rollout', 'undo', 'deployment/web']), /rolled back/);
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out/);
    const images = await ok(['get', 'pods', '-l', 'app=web', '-o', 'jsonpath={range .items[*]}{.metadata.deletionTimestamp}:{.spec.containers[0].image}{"\\n"}{end}']);
    const running = images.trim().split('\n').filter((line) => line.startsWith(':'));
    assert.deepEqual(running, Array.from({ length: 6 }, () => ':nginx:1.19'));
    assert.match(await ok(['rollout', 'history', 'deployment/web']), /\n2\s+<none>\n3\s+<none>/);
  });

  it('kubectl rollout restart makes new pods on every site', async () => {
    const before = await ok(['get', 'replicasets', '-l', 'app=web', '-o', 'name']);
    assert.match(await ok(['rollout', 'restart', 'deployment/web']), /restarted/);
    assert.match(await ok(['rollout', 'status', 'deployment/web', '--timeout=60s']), /successfully rolled out/);
    const afterRestart = await ok(['get', 'replicasets', '-l', 'app=web', '-o', 'name']);
    assert.equal(afterRestart.trim().split('\n').length, before.trim().split('\n').length + 3, 'one new ReplicaSet per site');
  });
});
