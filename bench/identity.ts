import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { httpsRequest, type HttpsResponse } from '../src/client/https-client.js';
import type { BootstrapToken } from '../src/identity/identity-bundle.js';
import { makeTestCsr } from '../src/identity/testing/test-csr.js';
import { createLogger } from '../src/observability/logger.js';
import { startControlPlane, type ControlPlane } from '../src/server/control-plane.js';
import { registerTestSites } from '../src/sites/testing/register-test-sites.js';
import { fmtMs, fmtRate, printTable, progress, type Row, withCpu } from './stats.js';
import { runWrk } from './wrk.js';

const HELP = `Usage: npm run bench -- identity [options]

CSR-to-certificate issuance over HTTPS against a real control plane in this process (SQLite
in a temporary home, the identity service as \`edgeplane server\` runs it). Setup: a site
registered through the site API, a vK8s with PODS bound pods and a Service selecting them,
one bootstrap token per pod from the site API, and PODS pairs of CSRs (EC P-256). Load: wrk
(a separate native process) POSTing /api/identity/v1/certificates with each connection
cycling through the pods' tokens and CSR pairs; every request is a server CSR and a client
CSR, so it yields two certificates. Each request verifies the token (ES256), reads the pod,
verifies both CSRs and signs both leaves. Baseline from the same run: \`openssl speed
-seconds 3 ecdsap256\` (one core's ECDSA P-256 sign and verify rates).

Options:
  --connections LIST  comma-separated wrk connection counts (default 8,32)
  --seconds S         seconds per load run (default 10)
  --pods N            distinct pods, tokens and CSR pairs the load cycles through (default 64)
  --profile DIR       write a V8 CPU profile (.cpuprofile) of this process during the load runs into DIR
  -h, --help          this text`;

/** The goal of issue 6: certificates per second on this 2-core machine. */
const GOAL_CERTIFICATES_PER_SECOND = 1000;
const SITE = 'bench-site';
const VK8S = '/api/vk8s/namespaces/default/bench';

interface Options {
  readonly connections: number[];
  readonly seconds: number;
  readonly pods: number;
  readonly profileDir?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({ args, options: { connections: { type: 'string', default: '8,32' }, seconds: { type: 'string', default: '10' }, pods: { type: 'string', default: '64' }, profile: { type: 'string' }, help: { type: 'boolean', short: 'h', default: false } } });
  if (values.help) return undefined;
  const connections = values.connections.split(',').map((c) => Number(c.trim()));
  const seconds = Number(values.seconds);
  const pods = Number(values.pods);
  if (connections.some((c) => !Number.isInteger(c) || c < 1)) throw new Error(`--connections takes whole numbers, not "${values.connections}"`);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`--seconds must be a whole number, not "${values.seconds}"`);
  if (!Number.isInteger(pods) || pods < 1) throw new Error(`--pods must be a whole number, not "${values.pods}"`);
  return { connections, seconds, pods, ...(values.profile === undefined ? {} : { profileDir: values.profile }) };
}

/** One core's ECDSA P-256 sign and verify rates: `openssl speed -seconds 3 ecdsap256`, parsed. */
export async function opensslEcdsaP256Speed(): Promise<{ sign: number; verify: number }> {
  const { stdout } = await promisify(execFile)('openssl', ['speed', '-seconds', '3', 'ecdsap256']);
  const match = /256 bits ecdsa \(nistp256\)\s+\S+\s+\S+\s+([\d.]+)\s+([\d.]+)/.exec(stdout);
  if (match === null) throw new Error(`cannot read the rates in openssl speed's output:\n${stdout}`);
  return { sign: Number(match[1]), verify: Number(match[2]) };
}

/** A site, a vK8s, `count` pods bound to the site, a Service selecting them, a token per pod from the site API. */
async function setUp(controlPlane: ControlPlane, home: string, count: number): Promise<BootstrapToken[]> {
  const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
  const tokens = { tenant: readFileSync(join(home, 'api-token'), 'utf8').trim(), platform: readFileSync(join(home, 'platform-api-token'), 'utf8').trim() };
  const call = (method: string, path: string, o: { token?: string | null; body?: unknown; cert?: string; key?: string; headers?: Record<string, string> } = {}): Promise<HttpsResponse> => {
    const token = o.token === undefined ? tokens.tenant : o.token;
    return httpsRequest(`${controlPlane.url}${path}`, ca, {
      method,
      headers: { 'content-type': 'application/json', ...(token === null ? {} : { authorization: `APIToken ${token}` }), ...o.headers },
      ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
      ...(o.cert === undefined ? {} : { cert: o.cert, key: o.key ?? '' }),
    });
  };
  const must = async (res: Promise<HttpsResponse>): Promise<HttpsResponse> => {
    const answer = await res;
    if (answer.status !== 200 && answer.status !== 201) throw new Error(`setup: HTTP ${answer.status}: ${answer.body}`);
    return answer;
  };
  const agent = await registerTestSites(call, tokens, 'bench-agent', [{ name: SITE, type: 'CUSTOMER_EDGE' }]);
  await must(call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'bench' }, spec: {} } }));
  await must(call('POST', `${VK8S}/api/v1/namespaces/default/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bench' }, spec: { selector: { app: 'bench' }, ports: [{ port: 80 }] } } }));
  const pods = controlPlane.virtualClusters.storeFor({ group: '', resource: 'pods' });
  if (pods === undefined) throw new Error('no pods store');
  const cluster = { tenant: 'acme', namespace: 'default', name: 'bench' };
  const minted: BootstrapToken[] = [];
  for (let i = 0; i < count; i++) {
    // Pods as the scheduler leaves them: bound to a node of the site, with the site label.
    const pod = await pods.create(
      { cluster, dryRun: false, fieldManager: 'bench' },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: `bench-${i}`, labels: { app: 'bench', 'svc.io/siteName': SITE } }, spec: { nodeName: `${SITE}-node-1`, restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', containers: [{ name: 'app', image: 'nginx:1.17', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }] } },
    );
    const body = { tenant: 'acme', namespace: 'default', vk8s: 'bench', pod: pod.metadata.name, uid: pod.metadata.uid };
    minted.push((await must(call('POST', '/api/sites/v1/pods/identity-token', { token: null, body, cert: agent.cert, key: agent.key }))).json<BootstrapToken>());
  }
  return minted;
}

/** The V8 CPU profiler of this process (the control plane runs in it), through node:inspector. */
async function startProfiler(): Promise<{ stop(dir: string): Promise<string> }> {
  const session = new Session();
  session.connect();
  const post = (method: string): Promise<unknown> => new Promise((resolve, reject) => session.post(method, (error, result) => (error === null ? resolve(result) : reject(error))));
  await post('Profiler.enable');
  await post('Profiler.start');
  return {
    stop: async (dir) => {
      const { profile } = (await post('Profiler.stop')) as { profile: unknown };
      session.disconnect();
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `identity-${Date.now()}.cpuprofile`);
      writeFileSync(path, JSON.stringify(profile));
      return path;
    },
  };
}

/**
 * `npm run bench -- identity`: the identity service's issuance rate over HTTPS next to
 * openssl's ECDSA P-256 sign rate measured in the same run.
 */
export async function benchIdentity(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (options === undefined) return void console.log(HELP);
  const rows: Row[] = [];
  progress(`machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other work on the machine shares them)`);
  progress('baseline: openssl speed -seconds 3 ecdsap256');
  const openssl = await opensslEcdsaP256Speed();

  const home = mkdtempSync(join(tmpdir(), 'edgeplane-bench-identity-'));
  const controlPlane = await startControlPlane({ home, listen: { host: '127.0.0.1', port: 0 }, logger: createLogger({ level: 'silent' }), controllers: [] });
  try {
    progress(`setup: ${options.pods} bound pods, their tokens and CSR pairs`);
    const tokens = await setUp(controlPlane, home, options.pods);
    const rotate = tokens.map((t) => ({ headers: { authorization: `Bearer ${t.token}` }, body: JSON.stringify({ serverCsr: makeTestCsr().pem, clientCsr: makeTestCsr().pem }) }));
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const check = await httpsRequest(`${controlPlane.url}/api/identity/v1/certificates`, ca, { method: 'POST', headers: { 'content-type': 'application/json', ...rotate[0]?.headers }, body: rotate[0]?.body ?? '' });
    if (check.status !== 200) throw new Error(`a first issuance failed: HTTP ${check.status}: ${check.body}`);

    const profiler = options.profileDir === undefined ? undefined : await startProfiler();
    for (const connections of options.connections) {
      progress(`issuance: ${options.seconds} s with ${connections} connections (wrk)`);
      const loopBefore = performance.eventLoopUtilization();
      const { result, cpuSeconds, wallSeconds } = await withCpu(() => runWrk({ url: controlPlane.url, path: '/api/identity/v1/certificates', method: 'POST', rotate, connections, seconds: options.seconds }));
      const loopBusy = performance.eventLoopUtilization(loopBefore).utilization;
      const certificates = result.rate * 2;
      rows.push({
        area: 'identity',
        measure: `certificates/s over HTTPS, ${connections} connections`,
        value: `${fmtRate(certificates)} (${fmtRate(result.rate)} requests, p50 ${fmtMs(result.p50)}, p99 ${fmtMs(result.p99)}, ${result.errors} errors, server ${(cpuSeconds / wallSeconds).toFixed(2)} cores, event loop ${Math.round(loopBusy * 100)}% busy)`,
        baseline: `${fmtRate(openssl.sign)} openssl ECDSA P-256 sign, 1 core`,
        ratio: `${(certificates / openssl.sign).toFixed(3)}×`,
      });
      if (result.errors > 0) progress(`${result.errors} requests failed during the run`);
    }
    if (profiler !== undefined && options.profileDir !== undefined) progress(`CPU profile written to ${await profiler.stop(options.profileDir)}`);
    // ── Sidecar start → READY latency (p50/p99) goes here: added with the sidecar (`edgeplane
    // sidecar`, src/sidecar/), against this same control plane and these tokens. ──
  } finally {
    await controlPlane.close();
    rmSync(home, { recursive: true, force: true });
  }
  printTable(`Identity service (goal: ≥ ${GOAL_CERTIFICATES_PER_SECOND.toLocaleString('en-US')} certificates/s; openssl verify ${fmtRate(openssl.verify)} on 1 core for scale)`, rows);
}
