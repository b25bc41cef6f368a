import { startInProcessProfiler } from './in-process-profiler.js';
import { controlPlaneCaller } from './control-plane-caller.js';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs, promisify } from 'node:util';
import { httpsRequest } from '../src/client/https-client.js';
import type { BootstrapToken } from '../src/site-api/identity-bundle.js';
import { makeTestCsr } from '../src/identity/testing/test-csr.js';
import { createLogger } from '../src/observability/logger.js';
import { startControlPlane, type ControlPlane } from '../src/server/control-plane.js';
import { registerTestSites } from '../src/site-plane/testing/register-test-sites.js';
import { toolPath } from '../src/testing/tools.js';
import { startSidecar } from '../src/sidecar/index.js';
import { fmtMs, fmtRate, latencySummary, nowMs, printTable, progress, rate, type Row, withCpu } from './stats.js';
import { runWrk } from './wrk.js';

const HELP = `Usage: npm run bench -- identity [options]

CSR-to-certificate issuance over HTTPS against a real control plane in this process (SQLite
in a temporary home, the identity service as \`edgeplane server\` runs it). Setup: a site
registered through the site API, a vK8s with bound pods and a Service selecting them,
one bootstrap token per pod from the site API, and PODS pairs of CSRs (EC P-256). Load: wrk
(a separate native process) POSTing /api/identity/v1/certificates with each connection
cycling through the pods' tokens and CSR pairs; every request is a server CSR and a client
CSR, so it yields two certificates. Each request verifies the token (ES256), reads the pod,
verifies both CSRs and signs both leaves. Baseline from the same run: \`openssl speed
-seconds 3 ecdsap256\` (one core's ECDSA P-256 sign and verify rates).

Then sidecar start → READY latency: SIDECARS sidecars (startSidecar, in this process, against
the same control plane), each with its own pod, a fresh bootstrap token from the site API
(minted before timing), its own identity folder and a loopback port, started N at a time for
each N of --sidecar-concurrency. Timed from calling startSidecar until whenReady() resolves:
HTTP listener up, two key pairs and CSRs made, the control plane's CA fetched and checked
against the token's pin, the bootstrap request answered, the six files written (fsync'd)
in the identity folder under $TMPDIR. Each sidecar is stopped after it is READY (not timed).
Three untimed sidecars warm up first. Baseline: the ECDSA work of one start at openssl's
1-core rates (4 key generations or signatures on the sidecar's side and 2 on the service's
counted as signs; the token and 2 CSR checks as verifies; TLS handshakes not counted).

Options:
  --connections LIST  comma-separated wrk connection counts (default 8,32)
  --seconds S         seconds per load run (default 10)
  --pods N            distinct pods, tokens and CSR pairs the load cycles through (default 64)
  --sidecars N        sidecars started per --sidecar-concurrency value (default 200)
  --sidecar-concurrency LIST
                      comma-separated counts of sidecars starting at once (default 1,8)
  --profile DIR       write V8 CPU profiles (.cpuprofile) of this process into DIR: one of the
                      issuance load runs, one per timed sidecar run
  -h, --help          this text`;

/** The goals of issue 6 on this 2-core machine: certificates per second, and sidecar start → READY p99. */
const GOAL_CERTIFICATES_PER_SECOND = 1000;
const GOAL_READY_P99_MS = 250;
const WARM_UP_SIDECARS = 3;
const SITE = 'bench-site';
const VK8S = '/api/vk8s/namespaces/default/bench';

interface Options {
  readonly connections: number[];
  readonly seconds: number;
  readonly pods: number;
  readonly sidecars: number;
  readonly sidecarConcurrency: number[];
  readonly profileDir?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      connections: { type: 'string', default: '8,32' },
      seconds: { type: 'string', default: '10' },
      pods: { type: 'string', default: '64' },
      sidecars: { type: 'string', default: '200' },
      'sidecar-concurrency': { type: 'string', default: '1,8' },
      profile: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const wholeNumbers = (flag: string, list: string): number[] => {
    const numbers = list.split(',').map((c) => Number(c.trim()));
    if (numbers.some((c) => !Number.isInteger(c) || c < 1)) throw new Error(`--${flag} takes whole numbers, not "${list}"`);
    return numbers;
  };
  const connections = wholeNumbers('connections', values.connections);
  const seconds = Number(values.seconds);
  const pods = Number(values.pods);
  const sidecars = Number(values.sidecars);
  const sidecarConcurrency = wholeNumbers('sidecar-concurrency', values['sidecar-concurrency']);
  if (!Number.isInteger(seconds) || seconds < 1) throw new Error(`--seconds must be a whole number, not "${values.seconds}"`);
  if (!Number.isInteger(pods) || pods < 1) throw new Error(`--pods must be a whole number, not "${values.pods}"`);
  if (!Number.isInteger(sidecars) || sidecars < 0) throw new Error(`--sidecars must be a whole number, not "${values.sidecars}"`);
  return { connections, seconds, pods, sidecars, sidecarConcurrency, ...(values.profile === undefined ? {} : { profileDir: values.profile }) };
}

/** One core's ECDSA P-256 sign and verify rates: `openssl speed -seconds 3 ecdsap256`, parsed. */
async function opensslEcdsaP256Speed(): Promise<{ sign: number; verify: number }> {
  const { stdout } = await promisify(execFile)(toolPath('openssl'), ['speed', '-seconds', '3', 'ecdsap256']);
  const match = /256 bits ecdsa \(nistp256\)\s+\S+\s+\S+\s+([\d.]+)\s+([\d.]+)/.exec(stdout);
  if (match === null) throw new Error(`cannot read the rates in openssl speed's output:\n${stdout}`);
  return { sign: Number(match[1]), verify: Number(match[2]) };
}

/** What the setup made: the pods' first tokens, and a way to mint another token for pod `i` from the site API. */
interface BenchPods {
  readonly tokens: readonly BootstrapToken[];
  mint(i: number): Promise<BootstrapToken>;
}

/** A site, a vK8s, `count` pods bound to the site, a Service selecting them, a token per pod from the site API. */
async function setUp(controlPlane: ControlPlane, home: string, count: number): Promise<BenchPods> {
  const { call, must, tokens } = controlPlaneCaller(controlPlane, home);
  const agent = await registerTestSites(call, tokens, 'bench-agent', [{ name: SITE, type: 'CUSTOMER_EDGE' }]);
  await must(call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'bench' }, spec: {} } }));
  await must(call('POST', `${VK8S}/api/v1/namespaces/default/services`, { body: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'bench' }, spec: { selector: { app: 'bench' }, ports: [{ port: 80 }] } } }));
  const pods = controlPlane.virtualClusters.storeFor({ group: '', resource: 'pods' });
  if (pods === undefined) throw new Error('no pods store');
  const cluster = { tenant: 'acme', namespace: 'default', name: 'bench' };
  const created: Array<{ name?: string; uid?: string }> = [];
  const mint = async (i: number): Promise<BootstrapToken> => {
    const pod = created[i];
    if (pod === undefined) throw new Error(`no pod ${i}`);
    const body = { tenant: 'acme', namespace: 'default', vk8s: 'bench', pod: pod.name, uid: pod.uid };
    return (await must(call('POST', '/api/sites/v1/pods/identity-token', { token: null, body, cert: agent.cert, key: agent.key }))).json<BootstrapToken>();
  };
  const minted: BootstrapToken[] = [];
  for (let i = 0; i < count; i++) {
    // Pods as the scheduler leaves them: bound to a node of the site, with the site label.
    const pod = await pods.create(
      { cluster, dryRun: false, fieldManager: 'bench' },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: `bench-${i}`, labels: { app: 'bench', 'svc.io/siteName': SITE } }, spec: { nodeName: `${SITE}-node-1`, restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', containers: [{ name: 'app', image: 'nginx:1.17', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }] } },
    );
    created.push({ ...(pod.metadata.name === undefined ? {} : { name: pod.metadata.name }), ...(pod.metadata.uid === undefined ? {} : { uid: pod.metadata.uid }) });
    minted.push(await mint(i));
  }
  return { tokens: minted, mint };
}

/**
 * Starts `count` sidecars, `concurrency` at a time, against the control plane at `server`; each
 * gets its own pod's fresh token (minted before any is timed), identity folder and port. Resolves
 * to the start → READY times (from calling startSidecar until whenReady() resolves), in ms,
 * and the CPU the process used meanwhile. A few untimed sidecars warm up first.
 */
async function sidecarReadyLatencies(server: string, pods: BenchPods, count: number, concurrency: number, profileDir?: string): Promise<{ samples: number[]; cpuSeconds: number; wallSeconds: number }> {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-bench-sidecars-'));
  try {
    const prepare = async (i: number, label: string): Promise<{ tokenFile: string; identityDir: string }> => {
      const dir = join(root, `${label}-${i}`);
      mkdirSync(dir);
      const tokenFile = join(dir, 'token');
      writeFileSync(tokenFile, (await pods.mint(i)).token + '\n', { mode: 0o600 });
      return { tokenFile, identityDir: join(dir, 'identity') };
    };
    const startOne = async (files: { tokenFile: string; identityDir: string }): Promise<number> => {
      const started = nowMs();
      const sidecar = await startSidecar({ server, ...files, listen: ['127.0.0.1:0'] });
      try {
        await sidecar.whenReady();
        return nowMs() - started;
      } finally {
        await sidecar.stop();
      }
    };
    for (let i = 0; i < WARM_UP_SIDECARS; i++) await startOne(await prepare(i, 'warm-up'));
    const prepared: Array<{ tokenFile: string; identityDir: string }> = [];
    for (let i = 0; i < count; i++) prepared.push(await prepare(i, 'timed'));
    const samples: number[] = [];
    const profiler = profileDir === undefined ? undefined : await startInProcessProfiler();
    const { cpuSeconds, wallSeconds } = await withCpu(() => rate(count, concurrency, async (i) => samples.push(await startOne(prepared[i] as { tokenFile: string; identityDir: string }))));
    if (profiler !== undefined && profileDir !== undefined) progress(`CPU profile written to ${await profiler.stop(profileDir, `sidecars-${concurrency}-at-a-time`)}`);
    return { samples, cpuSeconds, wallSeconds };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * `npm run bench -- identity`: the identity service's issuance rate over HTTPS and the
 * sidecar's start → READY latency, next to openssl's ECDSA P-256 rates measured in the same run.
 */
export async function benchIdentity(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (options === undefined) return void console.log(HELP);
  const rows: Row[] = [];
  const issuanceRates: number[] = [];
  const readyP99s: Array<{ concurrency: number; p99: number }> = [];
  progress(`machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other work on the machine shares them)`);
  progress('baseline: openssl speed -seconds 3 ecdsap256');
  const openssl = await opensslEcdsaP256Speed();

  const home = mkdtempSync(join(tmpdir(), 'edgeplane-bench-identity-'));
  const controlPlane = await startControlPlane({ home, listen: { host: '127.0.0.1', port: 0 }, logger: createLogger({ level: 'silent' }), controllers: [] });
  try {
    progress(`setup: ${Math.max(options.pods, options.sidecars)} bound pods, their tokens and ${options.pods} CSR pairs`);
    const pods = await setUp(controlPlane, home, Math.max(options.pods, options.sidecars));
    const rotate = pods.tokens.slice(0, options.pods).map((t) => ({ headers: { authorization: `Bearer ${t.token}` }, body: JSON.stringify({ serverCsr: makeTestCsr().pem, clientCsr: makeTestCsr().pem }) }));
    const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
    const check = await httpsRequest(`${controlPlane.url}/api/identity/v1/certificates`, ca, { method: 'POST', headers: { 'content-type': 'application/json', ...rotate[0]?.headers }, body: rotate[0]?.body ?? '' });
    if (check.status !== 200) throw new Error(`a first issuance failed: HTTP ${check.status}: ${check.body}`);

    const profiler = options.profileDir === undefined ? undefined : await startInProcessProfiler();
    for (const connections of options.connections) {
      progress(`issuance: ${options.seconds} s with ${connections} connections (wrk)`);
      const loopBefore = performance.eventLoopUtilization();
      const { result, cpuSeconds, wallSeconds } = await withCpu(() => runWrk({ url: controlPlane.url, path: '/api/identity/v1/certificates', method: 'POST', rotate, connections, seconds: options.seconds }));
      const loopBusy = performance.eventLoopUtilization(loopBefore).utilization;
      const certificates = result.rate * 2;
      issuanceRates.push(certificates);
      rows.push({
        area: 'identity',
        measure: `certificates/s over HTTPS, ${connections} connections`,
        value: `${fmtRate(certificates)} (${fmtRate(result.rate)} requests, p50 ${fmtMs(result.p50)}, p99 ${fmtMs(result.p99)}, ${result.errors} errors, server ${(cpuSeconds / wallSeconds).toFixed(2)} cores, event loop ${Math.round(loopBusy * 100)}% busy)`,
        baseline: `${fmtRate(openssl.sign)} openssl ECDSA P-256 sign, 1 core`,
        ratio: `${(certificates / openssl.sign).toFixed(3)}×`,
      });
      if (result.errors > 0) progress(`${result.errors} requests failed during the run`);
    }
    if (profiler !== undefined && options.profileDir !== undefined) progress(`CPU profile written to ${await profiler.stop(options.profileDir, 'identity')}`);

    if (options.sidecars > 0) {
      const floorMs = (6 / openssl.sign + 3 / openssl.verify) * 1000;
      for (const concurrency of options.sidecarConcurrency) {
        progress(`sidecar start → READY: ${options.sidecars} sidecars, ${concurrency} at a time`);
        const { samples, cpuSeconds, wallSeconds } = await sidecarReadyLatencies(controlPlane.url, pods, options.sidecars, concurrency, options.profileDir);
        const { p50, p99 } = latencySummary(samples);
        readyP99s.push({ concurrency, p99 });
        rows.push({
          area: 'sidecar',
          measure: `start → READY, ${concurrency} at a time (${samples.length} sidecars)`,
          value: `p50 ${fmtMs(p50)}, p99 ${fmtMs(p99)}, max ${fmtMs(Math.max(...samples))} (${fmtRate(samples.length / wallSeconds)} sidecars, process ${(cpuSeconds / wallSeconds).toFixed(2)} cores)`,
          baseline: `${fmtMs(floorMs)} ECDSA work of one start at openssl's 1-core rates`,
          ratio: `${(p50 / floorMs).toFixed(0)}× (p50)`,
        });
      }
    }
  } finally {
    await controlPlane.close();
    rmSync(home, { recursive: true, force: true });
  }
  printTable(`Identity service and sidecar (openssl ECDSA P-256 on 1 core: ${fmtRate(openssl.sign)} sign, ${fmtRate(openssl.verify)} verify)`, rows);
  const bestRate = Math.max(...issuanceRates);
  console.log(`\ngoal ≥ ${GOAL_CERTIFICATES_PER_SECOND.toLocaleString('en-US')} certificates/s: ${bestRate >= GOAL_CERTIFICATES_PER_SECOND ? 'met' : 'MISSED'} (best ${fmtRate(bestRate)})`);
  if (readyP99s.length > 0) {
    const worst = Math.max(...readyP99s.map((r) => r.p99));
    const verdict = (p99: number): string => (p99 <= GOAL_READY_P99_MS ? 'met' : 'MISSED');
    console.log(`goal READY p99 ≤ ${GOAL_READY_P99_MS} ms: ${verdict(worst)} (${readyP99s.map((r) => `${r.concurrency} at a time ${fmtMs(r.p99)}: ${verdict(r.p99)}`).join('; ')})`);
  }
}
