import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';

const BASE = '/api/vk8s/namespaces/default/vk1';
const DEPLOYMENTS = `${BASE}/apis/apps/v1/namespaces/default/deployments`;

const deployment = (annotations: Record<string, string>, name = 'web'): Record<string, unknown> => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, annotations },
  spec: {
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'web', image: 'nginx' }, { name: 'proxy', image: 'envoy' }] } },
  },
});

interface Status {
  kind: string;
  status: string;
  reason: string;
  code: number;
  message: string;
  details: { name: string; group?: string; kind: string; causes: Array<{ reason: string; message: string; field: string }> };
}

describe('vK8s flavor admission', () => {
  let h: ConfigHarness;

  before(async () => {
    h = await startConfigHarness();
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    assert.equal((await h.call('POST', '/api/config/namespaces/shared/workload_flavors', { body: { metadata: { name: 'gpu' }, spec: { vcpus: 4, memory: 8192 } } })).status, 200);
    // The control plane's admission reads flavors from its config cache, which the watch fills: wait until it knows gpu.
    const deadline = Date.now() + 5000;
    const probe = async (): Promise<number> => (await h.call('POST', `${DEPLOYMENTS}?dryRun=All`, { body: deployment({ 'svc.io/workload-flavor': 'gpu' }, 'probe') })).status;
    while ((await probe()) !== 201) {
      if (Date.now() > deadline) assert.fail('the control plane never learnt of workload_flavor gpu');
      await new Promise((r) => setTimeout(r, 10));
    }
  });
  after(async () => {
    await h?.close();
  });

  const supported = 'supported values: "tiny", "medium", "large", "gpu"';

  it('admission refuses an unknown flavor with 422 Invalid naming the annotation and the allowed values', async () => {
    const answer = await h.call('POST', DEPLOYMENTS, { body: deployment({ 'svc.io/workload-flavor': 'huge' }) });
    assert.equal(answer.status, 422);
    const message = `Unsupported value: "huge": ${supported}`;
    assert.deepEqual(answer.json<Status>(), {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Deployment.apps "web" is invalid: metadata.annotations[svc.io/workload-flavor]: ${message}`,
      reason: 'Invalid',
      details: { name: 'web', group: 'apps', kind: 'Deployment', causes: [{ reason: 'FieldValueNotSupported', message, field: 'metadata.annotations[svc.io/workload-flavor]' }] },
      code: 422,
    });
    assert.equal((await h.call('GET', `${DEPLOYMENTS}/web`)).status, 404, 'nothing was written');
  });

  it('admission refuses dry runs too', async () => {
    const answer = await h.call('POST', `${DEPLOYMENTS}?dryRun=All`, { body: deployment({ 'svc.io/workload-flavor-web': 'huge' }) });
    assert.equal(answer.status, 422);
    assert.equal(answer.json<Status>().details.causes[0]?.field, 'metadata.annotations[svc.io/workload-flavor-web]');
  });

  it('admission refuses a flavor for a container the template lacks', async () => {
    const answer = await h.call('POST', DEPLOYMENTS, { body: deployment({ 'svc.io/workload-flavor-db': 'large' }) });
    assert.equal(answer.status, 422);
    assert.equal(
      answer.json<Status>().message,
      'Deployment.apps "web" is invalid: metadata.annotations[svc.io/workload-flavor-db]: Invalid value: "large": the pod template has no container named "db": it has "web", "proxy"',
    );
  });

  it('admission accepts the seed flavors and the tenant workload_flavor names', async () => {
    const created = await h.call('POST', DEPLOYMENTS, { body: deployment({ 'svc.io/workload-flavor': 'medium', 'svc.io/workload-flavor-proxy': 'gpu' }) });
    assert.equal(created.status, 201, created.body);
  });

  it('admission checks updates, patches and server-side applies', async () => {
    const field = 'metadata.annotations[svc.io/workload-flavor]';
    const current = (await h.call('GET', `${DEPLOYMENTS}/web`)).json<Record<string, unknown>>();
    const replaced = await h.call('PUT', `${DEPLOYMENTS}/web`, { body: { ...current, ...deployment({ 'svc.io/workload-flavor': 'xl' }) } });
    assert.equal(replaced.status, 422);
    assert.equal(replaced.json<Status>().details.causes[0]?.field, field);
    const patched = await h.call('PATCH', `${DEPLOYMENTS}/web`, { raw: JSON.stringify({ metadata: { annotations: { 'svc.io/workload-flavor': 'xl' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 422);
    const applied = await h.call('PATCH', `${DEPLOYMENTS}/web?fieldManager=test&force=true`, {
      raw: JSON.stringify(deployment({ 'svc.io/workload-flavor': 'xl' })),
      headers: { 'content-type': 'application/apply-patch+yaml' },
    });
    assert.equal(applied.status, 422);
    const ok = await h.call('PATCH', `${DEPLOYMENTS}/web`, { raw: JSON.stringify({ metadata: { annotations: { 'svc.io/workload-flavor': 'large' } } }), headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(ok.status, 200, ok.body);
    const stored = (await h.call('GET', `${DEPLOYMENTS}/web`)).json<{ metadata: { annotations: Record<string, string> } }>();
    assert.equal(stored.metadata.annotations['svc.io/workload-flavor'], 'large');
  });

  it('admission checks a cron job template and leaves other kinds alone', async () => {
    const cronJob = {
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: { name: 'nightly' },
      spec: {
        schedule: '0 3 * * *',
        jobTemplate: { metadata: { annotations: { 'svc.io/workload-flavor': 'huge' } }, spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'job', image: 'busybox' }] } } } },
      },
    };
    const refused = await h.call('POST', `${BASE}/apis/batch/v1beta1/namespaces/default/cronjobs`, { body: cronJob });
    assert.equal(refused.status, 422);
    assert.equal(refused.json<Status>().details.causes[0]?.field, 'spec.jobTemplate.metadata.annotations[svc.io/workload-flavor]');
    const configMap = await h.call('POST', `${BASE}/api/v1/namespaces/default/configmaps`, { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', annotations: { 'svc.io/workload-flavor': 'huge' } } } });
    assert.equal(configMap.status, 201);
  });
});
