import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { kubectl120, kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';

const CREDS = '/api/web/namespaces/system/api_credentials';

describe('virtual cluster discovery with real kubectl', () => {
  let h: ConfigHarness;
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-kubectl-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const clients: Array<[string, string]> = [];

  before(async () => {
    clients.push(['kubectl 1.20', kubectl120()], ['newest kubectl', kubectlNewest()]);
    h = await startConfigHarness();
    assert.equal((await h.call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'vk1' }, spec: {} } })).status, 200);
    const res = await h.call('POST', CREDS, { body: { name: 'kube-vk1', expiration_days: 5, spec: { type: 'KUBE_CONFIG', virtual_k8s_name: 'vk1', virtual_k8s_namespace: 'default' } } });
    assert.equal(res.status, 200, res.body);
    writeFileSync(kubeconfig, Buffer.from(res.json<{ data: string }>().data, 'base64'));
  });
  after(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('kubectl version reports the server as Kubernetes 1.17', async () => {
    for (const [label, binary] of clients) {
      const run = await runKubectl(binary, ['version', '-o', 'json'], { kubeconfig, cacheDir: join(dir, `cache-${label}`) });
      assert.equal(run.status, 0, `${label}: ${run.stderr}`);
      const server = (JSON.parse(run.stdout) as { serverVersion: { major: string; minor: string; gitVersion: string } }).serverVersion;
      assert.deepEqual([server.major, server.minor], ['1', '17'], label);
      assert.match(server.gitVersion, /^v1\.17\.0\+edgeplane/, label);
    }
  });

  it('kubectl api-resources lists the seed\'s resources with short names, namespacing and verbs', async () => {
    for (const [label, binary] of clients) {
      const run = await runKubectl(binary, ['api-resources', '-o', 'wide'], { kubeconfig, cacheDir: join(dir, `cache-${label}`) });
      assert.equal(run.status, 0, `${label}: ${run.stderr}`);
      // kubectl 1.20 prints VERBS as [a b c]; newer ones as a,b,c and add CATEGORIES.
      const rows = new Map(
        run.stdout
          .trim()
          .split('\n')
          .slice(1)
          .map((line) => {
            const cells = line.replace(/\[([^\]]*)\]/, (_m, verbs: string) => verbs.split(' ').join(',')).trim().split(/\s+/);
            return [cells[0] ?? '', cells] as const;
          }),
      );
      for (const name of ['deployments', 'replicasets', 'statefulsets', 'jobs', 'cronjobs', 'pods', 'services', 'endpoints', 'secrets', 'configmaps', 'persistentvolumeclaims', 'serviceaccounts', 'events', 'nodes', 'namespaces', 'persistentvolumes']) {
        assert.ok(rows.has(name), `${label}: ${name} missing from\n${run.stdout}`);
      }
      const row = (name: string): string => (rows.get(name) ?? []).join(' ');
      assert.match(row('deployments'), /^deployments deploy apps\/v1 true Deployment create,delete,deletecollection,get,list,patch,update,watch( all)?$/, label);
      assert.match(row('pods'), /^pods po v1 true Pod get,list,watch( all)?$/, label);
      assert.match(row('namespaces'), /^namespaces ns v1 false Namespace get,list,patch,update,watch$/, label);
      assert.match(row('services'), /^services svc v1 true Service create,delete,get,list,patch,update,watch( all)?$/, label);
      assert.match(row('secrets'), /^secrets v1 true Secret create,delete,deletecollection,get,list,patch,update,watch$/, label);
      assert.match(row('cronjobs'), /^cronjobs cj batch\/v1beta1 true CronJob /, label);
    }
  });

  it('the cluster exists only for its tenant, and a kubeconfig works only for its own cluster', async () => {
    const version = '/api/vk8s/namespaces/default/vk1/version';
    assert.equal((await h.call('GET', version)).status, 200, 'the tenant admin token reaches it');
    const tenant = await h.call('POST', '/api/web/tenants', { token: h.platformToken, body: { name: 'globex' } });
    const globex = tenant.json<{ admin_token: string }>().admin_token;
    const foreign = await h.call('GET', version, { token: globex });
    assert.equal(foreign.status, 404);
    assert.deepEqual(foreign.json(), { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 });
    const anonymous = await h.call('GET', version, { token: null });
    assert.deepEqual([anonymous.status, anonymous.json()['reason']], [401, 'Unauthorized']);
    await h.call('POST', '/api/web/namespaces', { body: { metadata: { name: 'team' } } });
    await h.call('POST', '/api/config/namespaces/team/virtual_k8ss', { body: { metadata: { name: 'vk2' }, spec: {} } });
    const other = await runKubectl(kubectl120(), ['--server', `${h.url}/api/vk8s/namespaces/team/vk2`, 'version'], { kubeconfig, cacheDir: join(dir, 'cache-other') });
    assert.notEqual(other.status, 0);
    assert.match(other.stderr, /Error from server \(Forbidden\)/);
    // kubectl version reads /version raw and does not decode the Status; check it over HTTPS with the kubeconfig's certificate.
    const config = parse(readFileSync(kubeconfig, 'utf8')) as { users: Array<{ user: Record<string, string> }> };
    const user = config.users[0]?.user ?? {};
    const b64 = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const status = await h.call('GET', '/api/vk8s/namespaces/team/vk2/version', { token: null, cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) });
    assert.equal(status.status, 403);
    assert.equal(status.json()['message'], 'virtualclusters "vk2" is forbidden: this credential is for virtual cluster default/vk1');
    const unknownPath = await h.call('GET', '/api/vk8s/namespaces/default/vk1/apis/extensions/v1beta1');
    assert.equal(unknownPath.status, 404);
  });

  it('a revoked kubeconfig and a deleted virtual_k8s stop working', async () => {
    await h.call('POST', '/api/web/namespaces/system/revoke/api_credentials', { body: { name: 'kube-vk1' } });
    const revoked = await runKubectl(kubectl120(), ['version'], { kubeconfig, cacheDir: join(dir, 'cache-revoked') });
    assert.notEqual(revoked.status, 0);
    assert.match(revoked.stderr, /error: You must be logged in to the server/);
    assert.equal((await h.call('DELETE', '/api/config/namespaces/default/virtual_k8ss/vk1')).status, 200);
    assert.equal((await h.call('GET', '/api/vk8s/namespaces/default/vk1/version')).status, 404);
  });
});
