import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BootstrapToken } from '../src/site-api/identity-bundle.js';
import { createLogger } from '../src/observability/logger.js';
import { startControlPlane } from '../src/server/control-plane.js';
import { SIDECAR_NODE_FLAGS } from '../src/site-agent/runtimes/runc/index.js';
import { registerTestSites } from '../src/site-plane/testing/register-test-sites.js';
import { controlPlaneCaller } from './control-plane-caller.js';
import { fmtMiB, processCpuSeconds, processRssBytes } from './proc-stats.js';
import { nowMs, percentile, printTable, progress, type Row } from './stats.js';

const HELP = `Usage: npm run bench -- sidecar-start [options]

The cost of one sidecar process's start, as a runc pod's sidecar container pays it: a real
control plane in this process (memory store, HTTPS), a pod bound to a site and its bootstrap
token from the site API; then sidecar processes started one at a time, each with a fresh
identity folder and a --state-file, until that file says READY (the runtime watches the same
file). Two entry points, alternated start by start:

  lean       node dist/src/cli/sidecar-entry.js --server …   (what the runc runtime runs)
  full CLI   node bin/edgeplane.js sidecar --server …        (every command loaded; bin/'s
             checkout check, ~8 ms, included)

Per start: wall time from spawn to READY in the state file (polled every 5 ms), the process's
CPU seconds at READY (utime + stime of /proc/<pid>/stat: module loading, key generation, TLS,
files), its VmRSS at READY and --settle seconds later. Medians of --starts.

Baseline from the same run: a bare \`node -e "require('http').createServer(…).listen(0)"\` (the
same node binary and --node-flags): spawn to listening, its CPU seconds then, its VmRSS
--settle seconds after it listens (as bench runtime measures it).

Options:
  --starts N          starts per entry point (default 10)
  --settle S          seconds between READY (or listening) and the second RSS reading (default 1)
  --full-cli BIN      the edgeplane command of the full-CLI starts (default this checkout's
                      bin/edgeplane.js; e.g. an older build's, to compare with it)
  --node-flags FLAGS  flags for every node process started (default the runc runtime's
                      SIDECAR_NODE_FLAGS: ${SIDECAR_NODE_FLAGS.join(' ')}); --node-flags= for none, or e.g.
                      "--node-flags=--cpu-prof --cpu-prof-dir=/tmp/prof"
  -h, --help          this text`;

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
type EntryName = 'lean' | 'full CLI';

interface Start {
  readonly wallMs: number;
  readonly cpuSeconds: number;
  readonly rssReady: number;
  readonly rssSettled: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 50);

function rssOf(pid: number): number {
  const rss = processRssBytes(pid);
  if (rss === undefined) throw new Error(`cannot read the VmRSS of process ${pid}`);
  return rss;
}

/** One node process, spawned with `args`, until `ready()` says so; measured then and `settleMs` later, then killed. */
async function measureStart(nodeArgs: readonly string[], ready: (output: string) => boolean, settleMs: number): Promise<Start> {
  const started = nowMs();
  const child = spawn(process.execPath, [...nodeArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid ?? 0;
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => child.once('exit', (code) => ((exitCode = code), resolve())));
  try {
    while (!ready(output)) {
      if (exitCode !== undefined) throw new Error(`${nodeArgs.join(' ')} exited (${String(exitCode)}): ${output}`);
      if (nowMs() - started > 30_000) throw new Error(`${nodeArgs.join(' ')} was not ready within 30 s: ${output}`);
      await sleep(5);
    }
    const wallMs = nowMs() - started;
    const cpuSeconds = processCpuSeconds(pid);
    const rssReady = rssOf(pid);
    await sleep(settleMs);
    return { wallMs, cpuSeconds, rssReady, rssSettled: rssOf(pid) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

function summaryRow(name: string, starts: readonly Start[], bare: readonly Start[], settle: number): Row[] {
  const m = (pick: (s: Start) => number, of: readonly Start[]): number => median(of.map(pick));
  return [
    { area: name, measure: 'spawn → READY (median)', value: `${Math.round(m((s) => s.wallMs, starts))} ms`, baseline: `bare node:http listening ${Math.round(m((s) => s.wallMs, bare))} ms`, ratio: `${(m((s) => s.wallMs, starts) / m((s) => s.wallMs, bare)).toFixed(2)}×` },
    { area: name, measure: 'CPU at READY (median)', value: `${m((s) => s.cpuSeconds, starts).toFixed(3)} s`, baseline: `bare node:http ${m((s) => s.cpuSeconds, bare).toFixed(3)} s`, ratio: `${(m((s) => s.cpuSeconds, starts) / m((s) => s.cpuSeconds, bare)).toFixed(2)}×` },
    { area: name, measure: 'RSS at READY (median)', value: fmtMiB(m((s) => s.rssReady, starts)), baseline: `bare node:http ${fmtMiB(m((s) => s.rssReady, bare))}`, ratio: `${(m((s) => s.rssReady, starts) / m((s) => s.rssReady, bare)).toFixed(2)}×` },
    { area: name, measure: `RSS ${settle} s later (median)`, value: fmtMiB(m((s) => s.rssSettled, starts)), baseline: `bare node:http ${fmtMiB(m((s) => s.rssSettled, bare))}`, ratio: `${(m((s) => s.rssSettled, starts) / m((s) => s.rssSettled, bare)).toFixed(2)}×` },
  ];
}

/** `npm run bench -- sidecar-start`: the CPU, time and memory of one sidecar process's start, lean entry vs the full CLI, next to bare node:http. */
export async function benchSidecarStart(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { starts: { type: 'string', default: '10' }, settle: { type: 'string', default: '1' }, 'node-flags': { type: 'string', default: SIDECAR_NODE_FLAGS.join(' ') }, 'full-cli': { type: 'string', default: join(ROOT, 'bin', 'edgeplane.js') }, help: { type: 'boolean', short: 'h', default: false } } });
  if (values.help) return void console.log(HELP);
  const starts = Number(values.starts);
  const settle = Number(values.settle);
  if (!Number.isInteger(starts) || starts < 1) throw new Error(`--starts must be a whole number ≥ 1, not "${values.starts}"`);
  if (!(settle >= 0)) throw new Error(`--settle must be a number of seconds, not "${values.settle}"`);
  const nodeFlags = values['node-flags'].split(/\s+/).filter((f) => f !== '');
  const entries: Record<EntryName, string[]> = { lean: [join(ROOT, 'dist', 'src', 'cli', 'sidecar-entry.js')], 'full CLI': [values['full-cli'], 'sidecar'] };
  progress(`load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  const home = mkdtempSync(join(tmpdir(), 'edgeplane-bench-sidecar-start-'));
  const controlPlane = await startControlPlane({ home, listen: { host: '127.0.0.1', port: 0 }, logger: createLogger({ level: 'silent' }), controllers: [] });
  try {
    const { call, must, tokens } = controlPlaneCaller(controlPlane, home);
    const agent = await registerTestSites(call, tokens, 'bench-agent', [{ name: 'bench-site', type: 'CUSTOMER_EDGE' }]);
    await must(call('POST', '/api/config/namespaces/default/virtual_k8ss', { body: { metadata: { name: 'bench' }, spec: {} } }));
    const pods = controlPlane.virtualClusters.storeFor({ group: '', resource: 'pods' });
    if (pods === undefined) throw new Error('no pods store');
    const pod = await pods.create(
      { cluster: { tenant: 'acme', namespace: 'default', name: 'bench' }, dryRun: false, fieldManager: 'bench' },
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bench-0', labels: { 'svc.io/siteName': 'bench-site' } }, spec: { nodeName: 'bench-site-node-1', restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', containers: [{ name: 'app', image: 'nginx:1.17', imagePullPolicy: 'IfNotPresent', terminationMessagePolicy: 'File' }] } },
    );
    const tokenFile = join(home, 'token');
    const mint = async (): Promise<void> => {
      const token = (await must(call('POST', '/api/sites/v1/pods/identity-token', { token: null, body: { tenant: 'acme', namespace: 'default', vk8s: 'bench', pod: pod.metadata.name, uid: pod.metadata.uid }, cert: agent.cert, key: agent.key }))).json<BootstrapToken>();
      writeFileSync(tokenFile, token.token, { mode: 0o600 });
    };

    const results: Record<EntryName, Start[]> = { lean: [], 'full CLI': [] };
    const bare: Start[] = [];
    const bareScript = "require('http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',()=>console.log('listening'))";
    for (let i = 0; i < starts + 1; i++) {
      // The first round warms the page cache and the control plane; it is not counted.
      const counted = i > 0;
      progress(`${counted ? `start ${i}/${starts}` : 'warm-up'}: bare node:http, lean, full CLI`);
      const b = await measureStart([...nodeFlags, '-e', bareScript], (out) => out.includes('listening'), settle * 1000);
      if (counted) bare.push(b);
      for (const name of Object.keys(entries) as EntryName[]) {
        await mint();
        const dir = join(home, `run-${i}-${name.replace(' ', '-')}`);
        const stateFile = join(dir, 'state.json');
        const isReady = (): boolean => existsSync(stateFile) && readFileSync(stateFile, 'utf8').includes('"READY"');
        const sidecarArgs = ['--server', controlPlane.url, '--token-file', tokenFile, '--identity-dir', join(dir, 'identity'), '--state-file', stateFile, '--listen', '127.0.0.1:0', '--log-format', 'json'];
        const start = await measureStart([...nodeFlags, ...entries[name], ...sidecarArgs], isReady, settle * 1000);
        if (counted) results[name].push(start);
      }
    }
    const flags = nodeFlags.length === 0 ? ' (no node flags)' : ` (node ${nodeFlags.join(' ')})`;
    printTable(`Sidecar start: ${starts} starts per entry point, one at a time${flags}; full CLI: ${values['full-cli']}; load average at the end ${loadavg()[0]?.toFixed(2)}`, [...summaryRow('lean', results.lean, bare, settle), ...summaryRow('full CLI', results['full CLI'], bare, settle)]);
  } finally {
    await controlPlane.close();
    rmSync(home, { recursive: true, force: true });
  }
}
