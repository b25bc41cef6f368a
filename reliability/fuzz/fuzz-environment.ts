import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../src/observability/logger.js';
import { generateEcKeyPair, SIGN_ECDSA_SHA256, x509 } from '../../src/common/x509.js';
import { startSidecar, type RunningSidecar } from '../../src/sidecar/index.js';
import { registerTestSites, type TestAgent } from '../../src/site-plane/testing/register-test-sites.js';
import { startServer, type ServerProcess } from '../../test/e2e/support/server-process.js';
import { waitFor } from '../../test/e2e/support/wait-for.js';
import { apiCaller, deployWebWorkload, sitePodToken, type ApiCall } from '../../test/e2e/support/workload-identity-env.js';
import type { FuzzEndpoint } from './fuzz-request.js';

/** The vK8s cluster the vK8s target writes to (namespace `fuzz`): no virtual sites, so its workloads are placed nowhere. */
export const FUZZ_CLUSTER = '/api/vk8s/namespaces/fuzz/fuzz';

/**
 * What the fuzz targets talk to: an `edgeplane server` process (SQLite, its own home) over
 * HTTPS, with a regional-edge agent registered, the Deployment `web` of vK8s `vk1` running one
 * pod on it, and that pod's sidecar in this process (plain HTTP on loopback).
 */
export interface FuzzEnvironment {
  readonly server: ServerProcess;
  readonly ca: string;
  readonly adminToken: string;
  readonly platformToken: string;
  readonly call: ApiCall;
  /** HTTPS with the tenant admin's token (config API, vK8s). */
  readonly api: FuzzEndpoint;
  /** HTTPS with the regional-edge agent's client certificate (site API). */
  readonly agentApi: FuzzEndpoint;
  readonly agent: TestAgent;
  /** A customer-edge registration token of the tenant, and a CSR for registrations. */
  readonly registrationToken: string;
  readonly csr: string;
  readonly sidecar: RunningSidecar;
  readonly sidecarApi: FuzzEndpoint;
  /** Whether the server process is still running and answers /livez. */
  alive(): Promise<boolean>;
  close(): Promise<void>;
}

async function ok<T>(answer: Promise<{ status: number; body: string; json<X>(): X }>): Promise<T> {
  const a = await answer;
  if (a.status >= 300) throw new Error(`fuzz setup: HTTP ${a.status}: ${a.body.slice(0, 500)}`);
  return a.json<T>();
}

export async function startFuzzEnvironment(): Promise<FuzzEnvironment> {
  const home = mkdtempSync(join(tmpdir(), 'edgeplane-fuzz-'));
  const scratch = mkdtempSync(join(tmpdir(), 'edgeplane-fuzz-sidecar-'));
  let server: ServerProcess | undefined;
  let sidecar: RunningSidecar | undefined;
  const agents: Array<HttpAgent | HttpsAgent> = [];
  const close = async (): Promise<void> => {
    for (const agent of agents) agent.destroy();
    await sidecar?.stop();
    await server?.stop();
    rmSync(home, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  };
  try {
    server = await startServer(home);
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const adminToken = readFileSync(join(home, 'api-token'), 'utf8').trim();
    const platformToken = readFileSync(join(home, 'platform-api-token'), 'utf8').trim();
    const call = apiCaller(server.url, ca, adminToken);
    const agent = await registerTestSites(call, { tenant: adminToken, platform: platformToken }, 'fuzz-agent', [{ name: 're-fuzz', type: 'REGIONAL_EDGE', labels: { 'svc.io/region': 'eu' } }]);
    const [pod] = await deployWebWorkload(call, adminToken, 1);
    if (pod === undefined) throw new Error('fuzz setup: no pod of Deployment web');
    await ok(call('POST', '/api/web/namespaces', { body: { metadata: { name: 'fuzz' }, spec: {} } }));
    await ok(call('POST', '/api/config/namespaces/fuzz/virtual_k8ss', { body: { metadata: { name: 'fuzz' }, spec: {} } }));
    const token = await sitePodToken(call, { tenant: 'acme', pod, agent });
    const tokenFile = join(scratch, 'token');
    writeFileSync(tokenFile, `${token.token}\n`, { mode: 0o600 });
    sidecar = await startSidecar({ server: server.url, tokenFile, identityDir: join(scratch, 'identity'), listen: ['127.0.0.1:0'], logger: createLogger({ level: 'silent' }) });
    const sidecarUrl = sidecar.urls[0] ?? '';
    await waitFor('the fuzz sidecar to be READY', async () => ((await fetch(`${sidecarUrl}/status`).then((r) => r.text())) === 'READY' ? true : undefined), { timeoutMs: 60_000 });
    const registrationToken = (await ok<{ token: string }>(call('POST', '/api/sites/v1/tokens', { body: { type: 'CUSTOMER_EDGE', ttl_seconds: 86_400 } }))).token;
    const keys = await generateEcKeyPair();
    const csr = (await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=fuzz', keys, signingAlgorithm: SIGN_ECDSA_SHA256 })).toString('pem');

    const httpsAgent = (): HttpsAgent => {
      const a = new HttpsAgent({ keepAlive: true, maxSockets: 1 });
      agents.push(a);
      return a;
    };
    const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 1 });
    agents.push(httpAgent);
    const running = server;
    return {
      server,
      ca,
      adminToken,
      platformToken,
      call,
      api: { url: server.url, ca, agent: httpsAgent() },
      agentApi: { url: server.url, ca, agent: httpsAgent(), cert: { cert: agent.cert, key: agent.key } },
      agent,
      registrationToken,
      csr,
      sidecar,
      sidecarApi: { url: sidecarUrl, agent: httpAgent },
      alive: async () => running.child.exitCode === null && running.child.signalCode === null && (await call('GET', '/livez').then((r) => r.status === 200, () => false)),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
