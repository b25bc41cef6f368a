import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { startConfigHarness, type ConfigHarness } from '../../src/server/testing/config-harness.js';
import { kubectl120, kubectlNewest, runKubectl } from '../../src/vk8s/testing/kubectl.js';

const CREDS = '/api/web/namespaces/system/api_credentials';
const BASE = '/api/vk8s/namespaces/default/vk1';
const PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';

describe('virtual cluster /openapi/v2 with real kubectl', () => {
  let h: ConfigHarness;
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-openapi-'));
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

  it('kubectl explain deployment.spec.replicas prints the field from the served document', async () => {
    for (const [label, binary] of clients) {
      const run = await runKubectl(binary, ['explain', 'deployment.spec.replicas'], { kubeconfig, cacheDir: join(dir, `cache-${label}`) });
      assert.equal(run.status, 0, `${label}: ${run.stderr}`);
      assert.match(run.stdout, /KIND:\s+Deployment/, label);
      assert.match(run.stdout, /VERSION:\s+apps\/v1/, label);
      assert.match(run.stdout, /FIELD:\s+replicas\s+<integer>/, label);
      assert.match(run.stdout, /Number of desired pods\. This is a pointer to distinguish between explicit\s+zero and not specified\. Defaults to 1\./, label);
    }
  });

  it('kubectl explain pods lists the fields of Pod', async () => {
    for (const [label, binary] of clients) {
      const run = await runKubectl(binary, ['explain', 'pods'], { kubeconfig, cacheDir: join(dir, `cache-${label}`) });
      assert.equal(run.status, 0, `${label}: ${run.stderr}`);
      assert.match(run.stdout, /KIND:\s+Pod/, label);
      assert.match(run.stdout, /VERSION:\s+v1/, label);
      assert.match(run.stdout, /Pod is a collection of containers that can run on a host\./, label);
      for (const field of ['apiVersion', 'kind', 'metadata', 'spec', 'status']) assert.match(run.stdout, new RegExp(`^\\s+${field}\\s+<`, 'm'), `${label}: ${field}`);
    }
  });

  it('kubectl validates a manifest against the served schema and names the unknown field', async () => {
    const manifest = join(dir, 'configmap.yaml');
    writeFileSync(manifest, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\nbogus: 1\ndata:\n  a: b\n');
    for (const [label, binary] of clients) {
      const run = await runKubectl(binary, ['create', '-f', manifest, '--dry-run=client'], { kubeconfig, cacheDir: join(dir, `cache-${label}`) });
      assert.notEqual(run.status, 0, label);
      assert.match(run.stderr, /ValidationError\(ConfigMap\): unknown field "bogus" in io\.k8s\.api\.core\.v1\.ConfigMap/, `${label}: ${run.stderr}`);
    }
  });

  it('the document is served as JSON and protobuf with ETags, 304 and 406; /openapi/v3 is absent', async () => {
    const json = await h.call('GET', `${BASE}/openapi/v2`, { headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.equal(json.headers['content-type'], 'application/json');
    assert.match(String(json.headers['etag']), /^"[0-9A-F]{128}"$/);
    assert.equal(json.headers['vary'], 'Accept, Accept-Encoding');
    assert.ok(!Number.isNaN(Date.parse(String(json.headers['last-modified']))));
    const spec = json.json<{ paths: Record<string, unknown>; definitions: Record<string, unknown> }>();
    assert.ok('io.k8s.api.apps.v1.Deployment' in spec.definitions);
    assert.ok(!('io.k8s.api.networking.v1beta1.Ingress' in spec.definitions));
    assert.ok('/apis/apps/v1/namespaces/{namespace}/deployments/{name}' in spec.paths);

    const proto = await h.call('GET', `${BASE}/openapi/v2`, { headers: { accept: PROTOBUF } });
    assert.equal(proto.status, 200);
    assert.equal(proto.headers['content-type'], 'application/octet-stream');
    assert.notEqual(proto.headers['etag'], json.headers['etag']);
    const cached = await h.call('GET', `${BASE}/openapi/v2`, { headers: { accept: PROTOBUF, 'if-none-match': String(proto.headers['etag']) } });
    assert.deepEqual([cached.status, cached.body], [304, '']);

    const refused = await h.call('GET', `${BASE}/openapi/v2`, { headers: { accept: 'text/html' } });
    assert.equal(refused.status, 406);
    assert.equal(refused.json()['reason'], 'NotAcceptable');
    const gzipped = await h.call('GET', `${BASE}/openapi/v2`, { headers: { accept: PROTOBUF, 'accept-encoding': 'gzip' } });
    assert.deepEqual([gzipped.status, gzipped.headers['content-encoding'], gzipped.headers['etag']], [200, 'gzip', proto.headers['etag']]);
    assert.ok(Number(gzipped.headers['content-length']) < Number(proto.headers['content-length']) / 2);
    assert.equal((await h.call('GET', `${BASE}/openapi/v2`, { token: null })).status, 401);

    // Newer kubectl asks /openapi/v3 first: it must be a plain 404 for the cluster's own kubeconfig too.
    const config = parse(readFileSync(kubeconfig, 'utf8')) as { users: Array<{ user: Record<string, string> }> };
    const user = config.users[0]?.user ?? {};
    const b64 = (v: string | undefined): string => Buffer.from(v ?? '', 'base64').toString('utf8');
    const credential = { token: null, cert: b64(user['client-certificate-data']), key: b64(user['client-key-data']) };
    for (const path of ['/openapi/v3', '/openapi/v3/apis/apps/v1']) {
      const v3 = await h.call('GET', `${BASE}${path}`, credential);
      assert.deepEqual([v3.status, v3.json()['message']], [404, 'the server could not find the requested resource'], path);
    }
    assert.equal((await h.call('GET', `${BASE}/openapi/v2`, credential)).status, 200);
  });
});
