import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { createLogger } from '../../src/observability/logger.js';
import { startSidecar } from '../../src/sidecar/index.js';
import { ensureAgentCredential } from '../../src/site-agent/ensure-agent-credential.js';
import { EtcdTestServer } from '../../src/store/testing/etcd-server.js';
import { kubectl120 } from '../../src/vk8s/testing/kubectl.js';
import { httpsRequest, type HttpsResponse } from '../../src/client/https-client.js';
import { startGatewayRelay } from './support/gateway-relay.js';
import { startServer, type ServerProcess } from './support/server-process.js';
import { waitFor } from './support/wait-for.js';
import { apiCaller, type ApiCall, deployWebWorkload, sitePodToken } from './support/workload-identity-env.js';

const VK8S = '/api/vk8s/namespaces/default/vk1';

/** Writes a bootstrap token file (0600) and returns its path. */
function writeToken(file: string, token: string): string {
  writeFileSync(file, token + '\n', { mode: 0o600 });
  return file;
}

interface Kubeconfig {
  clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
  users: Array<{ user: { 'client-certificate-data': string; 'client-key-data': string } }>;
}

/**
 * Two `edgeplane server` processes on one etcd, with the operator's one key-encryption key and
 * homes of their own, started at once on the empty store: they share one platform CA, so every
 * credential minted through one holds on the other — a kubeconfig (client certificate), an
 * API token, a site registration token (the agent pins the CA) and a pod bootstrap token (the
 * sidecar pins it too); a pod's connections, relayed by its agent to either, reach the same
 * pod-facing API.
 */
describe('two servers on one etcd share the platform PKI', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-shared-pki-'));
  const kek = join(root, 'operator.kek');
  const homes = { a: join(root, 'a'), b: join(root, 'b') };
  let etcd: EtcdTestServer;
  let a: ServerProcess;
  let b: ServerProcess;
  /** A's CA file. */
  let ca: string;
  let callA: ApiCall;
  /** An admin token file of the first start: in the home of the server whose start made that tenant. */
  const tokenOf = (file: 'api-token' | 'platform-api-token'): string => readFileSync(join(existsSync(join(homes.a, file)) ? homes.a : homes.b, file), 'utf8').trim();

  before(async () => {
    etcd = await EtcdTestServer.create();
    writeFileSync(kek, 'cd'.repeat(32) + '\n', { mode: 0o600 });
    const args = ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint, '--identity-kek-file', kek];
    [a, b] = await Promise.all([startServer(homes.a, args), startServer(homes.b, args)]);
    ca = readFileSync(join(homes.a, 'pki', 'ca.crt'), 'utf8');
    callA = apiCaller(a.url, ca, tokenOf('api-token'));
  });
  after(async () => {
    await Promise.all([a?.stop('SIGTERM'), b?.stop('SIGTERM')]);
    await etcd?.stop();
    rmSync(root, { recursive: true, force: true });
  });

  it('one CA for both, in ca.crt, its key in the store only; each server its own serving certificate', () => {
    assert.equal(readFileSync(join(homes.b, 'pki', 'ca.crt'), 'utf8'), ca);
    const origins = [a, b].map((s) => s.logs.find((l) => l['msg'] === 'platform PKI ready')?.['ca']).sort();
    assert.deepEqual(origins, ['created', 'stored'], 'exactly one server made the CA');
    const caCert = new X509Certificate(ca);
    for (const home of [homes.a, homes.b]) {
      assert.equal(existsSync(join(home, 'pki', 'ca.key')), false);
      assert.ok(new X509Certificate(readFileSync(join(home, 'pki', 'apiserver.crt'), 'utf8')).verify(caCert.publicKey));
    }
    assert.notEqual(readFileSync(join(homes.a, 'pki', 'apiserver.crt'), 'utf8'), readFileSync(join(homes.b, 'pki', 'apiserver.crt'), 'utf8'));
  });

  it('accepts on B a kubeconfig, an API token, a site registration token and a pod bootstrap token minted through A', async () => {
    const platformToken = tokenOf('platform-api-token');
    const callB = apiCaller(b.url, readFileSync(join(homes.b, 'pki', 'ca.crt'), 'utf8'), '');

    // An API token minted through A.
    const minted = await callA('POST', '/api/web/namespaces/system/api_credentials', { body: { name: 'shared-token', namespace: 'system', expiration_days: 1, spec: { type: 'API_TOKEN' } } });
    assert.equal(minted.status, 200, minted.body);
    const apiToken = minted.json<{ data: string }>().data;
    const listed = await callB('GET', '/api/config/namespaces/default/virtual_k8ss', { token: apiToken });
    assert.equal(listed.status, 200, listed.body);

    // A site registration token minted through A; the agent registers with B, pinning the CA.
    const issued = await callA('POST', '/api/sites/v1/tokens', { token: platformToken, body: { type: 'REGIONAL_EDGE', ttl_seconds: 600 } });
    assert.equal(issued.status, 200, issued.body);
    const agent = await ensureAgentCredential({
      home: join(root, 'agent'),
      agent: 'agent-1',
      sites: [{ name: 're-1', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' }, nodes: [{ name: 'node-1', cpu: '8', memory: '16Gi' }] }],
      token: issued.json<{ token: string }>().token,
      server: b.url,
      logger: createLogger({ level: 'silent' }),
    });
    assert.equal(agent.ca, ca);

    // A virtual cluster with a pod on that site, and a kubeconfig for it minted through A, used by kubectl against B.
    const [pod] = await deployWebWorkload(callA, tokenOf('api-token'), 1);
    assert.ok(pod !== undefined);
    const kc = await callA('POST', '/api/web/namespaces/system/api_credentials', { body: { name: 'shared-kubeconfig', namespace: 'system', expiration_days: 1, spec: { type: 'KUBE_CONFIG', virtual_k8s_namespace: 'default', virtual_k8s_name: 'vk1' } } });
    assert.equal(kc.status, 200, kc.body);
    const kubeconfig = Buffer.from(kc.json<{ data: string }>().data, 'base64').toString('utf8');
    assert.ok((parse(kubeconfig) as Kubeconfig).clusters[0]?.cluster.server.startsWith(a.url));
    const file = join(root, 'kubeconfig');
    writeFileSync(file, kubeconfig, { mode: 0o600 });
    const ctl = spawnSync(kubectl120(), ['--kubeconfig', file, '--cache-dir', join(root, 'cache'), '--server', `${b.url}${VK8S}`, 'get', 'pods', '-o', 'name'], { encoding: 'utf8' });
    assert.equal(ctl.status, 0, ctl.stderr);
    assert.equal(ctl.stdout, `pod/${pod.metadata.name}\n`);

    // The agent (registered with B) asks A for the pod's bootstrap token; the sidecar bootstraps with B.
    const bootstrap = await sitePodToken(callA, { tenant: 'acme', pod, agent: { cert: agent.certificate, key: agent.key } });
    const tokenFile = join(root, 'bootstrap-token');
    writeFileSync(tokenFile, bootstrap.token + '\n', { mode: 0o600 });
    const sidecar = await startSidecar({ server: b.url, tokenFile, identityDir: join(root, 'identity'), listen: ['127.0.0.1:0'] });
    try {
      await waitFor('the sidecar to be READY with an identity from B', () => Promise.resolve(sidecar.state() === 'READY' ? true : undefined), { timeoutMs: 20_000, describe: () => JSON.stringify(sidecar.detail()) });
    } finally {
      await sidecar.stop();
    }

    // Its pod's connections relayed by the agent to either server, as behind a load balancer: each
    // server's pod-facing API serves the sidecar (the bootstrap token is used once: a second pod token).
    const relay = await startGatewayRelay(agent, [a.url, b.url]);
    const relayed = await startSidecar({
      server: a.url,
      tokenFile: writeToken(join(root, 'relayed-token'), (await sitePodToken(callB, { tenant: 'acme', pod, agent: { cert: agent.certificate, key: agent.key } })).token),
      identityDir: join(root, 'relayed-identity'),
      listen: ['127.0.0.1:0'],
      connectTo: `127.0.0.1:${relay.port}`,
    });
    try {
      await waitFor('the relayed sidecar to be READY', () => Promise.resolve(relayed.state() === 'READY' ? true : undefined), { timeoutMs: 20_000, describe: () => JSON.stringify(relayed.detail()) });
      for (const server of [a.url, b.url, a.url, b.url]) {
        const viaRelay = (path: string): Promise<HttpsResponse> => httpsRequest(`${server}${path}`, ca, { connectTo: { host: '127.0.0.1', port: relay.port } });
        assert.deepEqual([(await viaRelay('/api/sites/v1/ca')).status, (await viaRelay('/metrics')).status, (await viaRelay('/version')).status], [200, 404, 404]);
      }
      assert.deepEqual([...relay.dialled.keys()].sort(), [a.url, b.url].sort(), 'both servers took relayed connections');
    } finally {
      await relayed.stop();
      relay.close();
    }
  });

  it('a server whose key-encryption key does not open the store\'s CA does not start, and says why', async () => {
    const other = join(root, 'other.kek');
    writeFileSync(other, 'ef'.repeat(32) + '\n', { mode: 0o600 });
    await assert.rejects(
      startServer(join(root, 'c'), ['--store', 'etcd', '--etcd-endpoints', etcd.endpoint, '--identity-kek-file', other]),
      /server exited with 1 before serving: .*the platform CA in the store cannot be opened with this server's key-encryption key: .*give every server the same --identity-kek-file/s,
    );
    assert.equal(existsSync(join(root, 'c', 'pki', 'ca.crt')), false, 'no CA of its own');
  });
});
