import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SIDECAR_CONTAINER_NAME, SIDECAR_PORT } from '../../src/api/sidecar-injection.js';
import type { KubeObject } from '../../src/apimachinery/object.js';
import { BUILTIN_POLICY_NAME } from '../../src/config/builtin-secret-policy.js';
import { EDGEPLANE_BIN } from './support/server-process.js';
import { podLeftovers, startRuncSiteEnv, type RuncSiteEnv } from './support/runc-site-env.js';
import { waitFor } from './support/wait-for.js';

/**
 * What a pod of a runc site reaches through the relay on its site gateway (`<gateway>:8443`):
 * the control plane's pod-facing API, which serves the sidecar's calls alone — the CA, identity
 * issuance with a bootstrap token, renewal and the secret API with a pod certificate. The
 * platform's own endpoints (metrics, version, health) and every other API answer 404 there,
 * whatever a pod sends; the sidecar still gets, renews and uses its identity through it.
 */

const SITE = 'ce-relay';
const RELAY_PORT = 8443;
const PLAINTEXT = 'through the relay';

interface Pod extends KubeObject {
  status?: { hostIP?: string; containerStatuses?: Array<{ name: string; state: Record<string, unknown> }> };
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata: {name: prober}
spec:
  replicas: 1
  selector: {matchLabels: {app: prober}}
  template:
    metadata: {labels: {app: prober}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: main, image: host, command: ["sleep", "3600"]}
`;

/** Runs a command without blocking this process's event loop (the control plane and the agent run in it). */
function run(command: string, args: readonly string[], input = ''): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    child.stdin.end(input);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('a pod on a runc site reaches through the gateway relay only what its sidecar needs', () => {
  let env: RuncSiteEnv;
  let pod: Pod;

  before(async () => {
    // Certificates of a minute: the sidecar renews within 36 s.
    env = await startRuncSiteEnv([{ name: SITE, hostImage: true }], { identityCertificateLifetimeMs: 60_000 });
    await env.ok(['apply', '-f', '-'], DEPLOYMENT);
    pod = await waitFor('the prober and its sidecar running', async () => {
      const found = (await env.read<{ items: Pod[] }>('api/v1/namespaces/default/pods?labelSelector=app%3Dprober'))?.items[0];
      const statuses = found?.status?.containerStatuses ?? [];
      return ['main', SIDECAR_CONTAINER_NAME].every((c) => statuses.some((s) => s.name === c && s.state['running'] !== undefined)) ? found : undefined;
    }, { timeoutMs: 60_000 });
  });

  after(async () => {
    if (env === undefined) return;
    await env.ok(['delete', 'deployment', 'prober', '--wait=false']).catch(() => '');
    await waitFor('pods gone', () => Promise.resolve(env.runtime(SITE).size === 0 ? true : undefined), { timeoutMs: 30_000 }).catch(() => undefined);
    const left = podLeftovers(env, SITE);
    await env.close();
    assert.deepEqual(left, []);
  });

  const name = (): string => pod.metadata.name ?? '';
  const gateway = (): string => pod.status?.hostIP ?? '';

  /** curl in the pod's workload container against the relay: the status code and the body. */
  const curl = async (method: string, path: string): Promise<{ code: number; body: string }> => {
    const out = await env.ok(['exec', name(), '-c', 'main', '--', 'curl', '-sk', '-X', method, '-o', '-', '-w', '\n%{http_code}', `https://${gateway()}:${RELAY_PORT}${path}`]);
    const at = out.lastIndexOf('\n');
    return { code: Number(out.slice(at + 1)), body: out.slice(0, at) };
  };

  it("the platform's endpoints and every other API answer 404 to the pod, with nothing of the platform in the answer", async () => {
    assert.match(gateway(), /^10\.244\.\d+\.1$/);
    const refused: Array<[string, string]> = [
      ['GET', '/metrics'],
      ['GET', '/version'],
      ['GET', '/readyz'],
      ['GET', '/readyz?verbose'],
      ['GET', '/healthz'],
      ['GET', '/livez'],
      ['GET', '/readyz/ping'],
      ['GET', '/api/web/namespaces'],
      ['GET', '/api/config/namespaces/default/virtual_k8ss'],
      ['GET', '/api/vk8s/namespaces/default/vk1/api/v1/namespaces/default/pods'],
      ['GET', '/api/vk8s/namespaces/default/vk1/version'],
      ['POST', '/api/identity/v1/tokens'],
      ['POST', '/api/sites/v1/register'],
      ['POST', '/api/sites/v1/heartbeat'],
      ['GET', '/api/sites/v1/pods?watch=1'],
      ['GET', '/api/secret_management/get_public_key'],
      ['GET', '/'],
    ];
    for (const [method, path] of refused) {
      const answer = await curl(method, path);
      assert.equal(answer.code, 404, `${method} ${path}: ${answer.code} ${answer.body.slice(0, 200)}`);
      assert.ok(answer.body.length < 200, `${method} ${path}: ${answer.body.length} bytes`);
      assert.doesNotMatch(answer.body, /edgeplane|process_|nodejs_|gitVersion|\[\+\]/, `${method} ${path}`);
    }
  });

  it("the sidecar's routes are served there: the CA, and issuance, renewal and the secret API, each refusing a request without its credential", async () => {
    const ca = await curl('GET', '/api/sites/v1/ca');
    assert.deepEqual([ca.code, ca.body.trim()], [200, env.h.ca.trim()]);
    for (const [method, path] of [['POST', '/api/identity/v1/certificates'], ['POST', '/api/identity/v1/certificates/renew'], ['POST', '/api/secret_management/v1/unseal'], ['GET', '/api/secret_management/v1/providers/vault']] as const) {
      const answer = await curl(method, path);
      // The route answers (a Status or a secret API error), refusing the request: no body, no token, no pod certificate.
      assert.ok([400, 401].includes(answer.code), `${method} ${path}: ${answer.code} ${answer.body}`);
    }
  });

  it('the sidecar got its identity through the relay, renews it there, and unseals a secret through it', async () => {
    const sidecarLog = (): Promise<string> => env.ok(['logs', name(), '-c', SIDECAR_CONTAINER_NAME]);
    assert.match(await sidecarLog(), /"request":"bootstrap".*"msg":"identity issued"/);
    await waitFor('a renewal through the relay', async () => (/"request":"renew".*"msg":"identity issued"/.test(await sidecarLog()) ? true : undefined), { timeoutMs: 90_000, intervalMs: 1000, describe: sidecarLog });

    const dir = join(env.dir, 'secret-docs');
    const caFile = join(env.dir, 'ca.crt');
    writeFileSync(caFile, env.h.ca);
    const cli = async (args: readonly string[], input?: string): Promise<string> => {
      const result = await run(process.execPath, [EDGEPLANE_BIN, ...args], input);
      assert.equal(result.status, 0, `edgeplane ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    const connection = ['--server', env.h.url, '--token', env.h.adminToken, '--ca-file', caFile];
    mkdirSync(dir);
    writeFileSync(join(dir, 'key.json'), await cli(['secret', 'get-public-key', ...connection]));
    writeFileSync(join(dir, 'policy.json'), await cli(['secret', 'get-policy-document', '-n', 'shared', '--name', BUILTIN_POLICY_NAME, ...connection]));
    const location = (await cli(['secret', 'encrypt', '--public-key', join(dir, 'key.json'), '--policy-document', join(dir, 'policy.json')], PLAINTEXT)).trim();
    const request = JSON.stringify({ type: 'blindfold', location });
    const unsealed = await env.ok(['exec', name(), '-c', 'main', '--', 'curl', '-s', '-X', 'POST', '-H', 'content-type: application/json', '-d', request, `http://127.0.0.1:${SIDECAR_PORT}/secret/unseal`]);
    assert.equal(Buffer.from(unsealed, 'base64').toString(), PLAINTEXT, unsealed);
  });
});
