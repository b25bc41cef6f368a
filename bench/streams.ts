import { type ChildProcess, spawn } from 'node:child_process';
import { runProgram as run } from './run-program.js';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { parseArgs } from 'node:util';
import { Exec, KubeConfig, Log, type V1Status } from '@kubernetes/client-node';
import { findRuntimePrograms, podContainerId, runcStateRoot } from '../src/site-agent/runtimes/runc/index.js';
import { startKubectlPortForward, type KubectlPortForward } from '../src/vk8s/streams/testing/kubectl-processes.js';
import { kubectl120, kubectlNewest, runKubectl, spawnKubectl } from '../src/vk8s/testing/kubectl.js';
import { startInProcessProfiler } from './in-process-profiler.js';
import { fmtMiB, machineBusySeconds, processCpuSeconds, processRssBytes } from './proc-stats.js';
import { startRuncBenchSite, type BenchPod, type RuncBenchSite } from './runc-bench-site.js';
import { LineClock } from './line-clock.js';
import { latencySummary, nowMs, printTable, progress, type Row } from './stats.js';
import { POD_CLOCK, POD_SERVER, STREAM_CLIENT } from './stream-programs.js';

const HELP = `Usage: npm run bench -- streams [options]

Pod streams through the site tunnel (docs/TUNNEL.md) next to the same work without it (needs
root; runc, conmon, catatonit, ip, kubectl 1.20 and the newest kubectl from .tools/). A control
plane in this process (memory store, HTTPS), virtual cluster default/bench, one site run by
\`edgeplane site --runtime runc --host-image\` in its own process (bench/runc-bench-site.ts).
Two pods on the host image, each with the injected sidecar and a request of 1 CPU (cpu.shares
1024, as any process of the machine): "srv" runs a node:http server on :8080 (GET /big?bytes=N
sends N bytes, POST /sink reads a body, GET /small answers 100 bytes); "clock" prints
Date.now() every 50 ms. The path of every tunnelled figure is:
client ─▶ kubectl (SPDY/3.1 for 1.20, WebSocket for the newest; or client-node) ─TLS─▶ control
plane (this process) ─HTTP/2 stream on the agent's tunnel, TLS─▶ agent process ─▶ pod.

  port-forward   one transfer of --mib MiB through \`kubectl port-forward srv :8080\`, download
                 (GET /big) and upload (POST /sink), with each kubectl. The client is a node
                 process of its own (bench/stream-programs.ts), timed from its request to the
                 end of the body (download) or the server's answer (upload). MiB/s; beside it the
                 CPU seconds of the kubectl process, the control plane, the agent process and the
                 whole machine (/proc/stat: the client, the pod's server, the kernel and any other
                 work on the machine included) during the transfer.
  small requests --connections keep-alive HTTP/1.1 connections, each sending GET /small one
                 after another for --seconds s, through the newest kubectl's port-forward (one
                 tunnel stream per connection): requests/s, p50/p99 latency per request.
  exec           --exec-runs runs (after one untimed) of \`kubectl exec srv -c c -- true\` with
                 each kubectl (a process each: kubectl's start, TLS, the upgrade, runc exec on
                 the site, the exit code back), and of client-node 1.4.0's Exec (WebSocket, in
                 this process: no process start). \`kubectl version --client\` alone, timed the
                 same way, shows what kubectl's own start costs.
  logs           the time from the clock container's write (its Date.now() in the line) to the
                 line reaching the reader (Date.now() when its bytes arrive; same machine clock),
                 for \`kubectl logs -f --tail=0\` with each kubectl and client-node's Log with
                 follow, all four readers at once over the same --log-lines lines (the first 3
                 of each left out). The container's stdout goes to conmon, which writes the CRI
                 log file; the agent follows the file (inotify) and sends new lines.
  memory         VmRSS of the control plane (this process) and of the agent process before the
                 first transfer, its peak (sampled every 100 ms) during all port-forward
                 transfers, 1 s after the last, and the control plane's after a full GC
                 (global.gc: what it still holds, not garbage V8 has not collected yet), and
                 the peak of its memory outside V8's heap (process.memoryUsage().external: the
                 Buffers in flight) during each transfer, shown beside its MiB/s, and its
                 Buffers once the kubectl port-forward processes ended (after a GC). A
                 stream's buffering should be bounded by its HTTP/2 windows (1 MiB per stream)
                 and the client protocol's buffers, not grow with the transfer's size.

Baselines from the same run, on the same machine:
  direct         the same client process, the same transfer and the same small requests, run
                 inside the site's network namespace (\`ip netns exec <site netns>\`) to the
                 pod's IP: the site bridge and the pod's veth, no kubectl, control plane or tunnel.
  runc exec      \`runc --root <site's runc root> exec <container id> true\`, the container the
                 agent runs (the runc binary and root the runtime uses), started from this process.
  tail -F        \`tail -F -n 0\` of the container's CRI log file on the site: conmon's write to
                 the file, without the agent, tunnel, control plane or kubectl.

Options:
  --mib N             size of each port-forward transfer in MiB (default 1024)
  --no-upload         skip the upload transfers
  --kubectl WHICH     both (default), newest or 1.20: the kubectls of the port-forward figures
  --connections N     concurrent connections of the small requests (default 32)
  --seconds S         length of each small-requests run (default 10)
  --exec-runs N       timed runs per exec figure (default 30)
  --log-lines N       lines each log reader times (default 200)
  --cpu-prof DIR      write a V8 CPU profile of the control plane during the newest kubectl's
                      download to DIR
  --json FILE         also write the figures as JSON to FILE
  -h, --help          this text`;

/** Issue 22's goals. */
const GOAL_PORT_FORWARD_SHARE = 0.5;
const GOAL_EXEC_RATIO = 3;
const GOAL_LOG_P99_MS = 100;
const CONTAINER = 'c';
const SKIPPED_LOG_LINES = 3;

interface Options {
  readonly mib: number;
  readonly upload: boolean;
  readonly kubectls: ReadonlyArray<'newest' | '1.20'>;
  readonly connections: number;
  readonly seconds: number;
  readonly execRuns: number;
  readonly logLines: number;
  readonly cpuProf?: string;
  readonly json?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      mib: { type: 'string', default: '1024' },
      'no-upload': { type: 'boolean', default: false },
      kubectl: { type: 'string', default: 'both' },
      connections: { type: 'string', default: '32' },
      seconds: { type: 'string', default: '10' },
      'exec-runs': { type: 'string', default: '30' },
      'log-lines': { type: 'string', default: '200' },
      'cpu-prof': { type: 'string' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const whole = (flag: string, text: string): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${flag} takes a whole number of at least 1, not "${text}"`);
    return n;
  };
  const kubectls = ({ both: ['newest', '1.20'], newest: ['newest'], '1.20': ['1.20'] } as const)[values.kubectl as 'both'];
  if (kubectls === undefined) throw new Error(`--kubectl takes both, newest or 1.20, not "${values.kubectl}"`);
  return {
    mib: whole('mib', values.mib),
    upload: !values['no-upload'],
    kubectls,
    connections: whole('connections', values.connections),
    seconds: whole('seconds', values.seconds),
    execRuns: whole('exec-runs', values['exec-runs']),
    logLines: whole('log-lines', values['log-lines']),
    ...(values['cpu-prof'] === undefined ? {} : { cpuProf: values['cpu-prof'] }),
    ...(values.json === undefined ? {} : { json: values.json }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const fmtTime = (ms: number): string => (ms < 1000 ? `${ms.toFixed(1)} ms` : `${(ms / 1000).toFixed(2)} s`);
const fmtP = (s: { p50: number; p99: number }): string => `p50 ${fmtTime(s.p50)}, p99 ${fmtTime(s.p99)}`;


/** Where the client connects: through a kubectl port-forward on this host, or to the pod's IP inside the site's network namespace. */
interface Path {
  readonly host: string;
  readonly port: number;
  readonly netns?: string;
}

class Client {
  constructor(
    private readonly script: string,
    private readonly ip: string,
  ) {}

  async run<T>(path: Path, mode: string, ...args: Array<string | number>): Promise<T> {
    const argv = [this.script, mode, path.host, String(path.port), ...args.map(String)];
    const out = path.netns === undefined ? await run(process.execPath, argv) : await run(this.ip, ['netns', 'exec', path.netns, process.execPath, ...argv]);
    return JSON.parse(out) as T;
  }
}

interface TransferFigure {
  readonly mibPerSecond: number;
  /** The kubectl's only through a port-forward; machine: every CPU's busy time (the client, the pod's server, the kernel and other work too). */
  readonly cpuSeconds: { readonly controlPlane: number; readonly agent: number; readonly kubectl?: number; readonly machine: number };
  readonly memoryPeakBytes: MemoryPeak;
}

/** The pid of this process's child whose command line holds all of `texts` (the kubectl port-forward it started). */
function childPid(...texts: string[]): number | undefined {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && texts.every((t) => readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(t))) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** Peaks while it runs: VmRSS of this process (the control plane) and of the agent, and this process's memory outside V8's heap (Buffers: what a stream holds in flight). */
interface MemoryPeak {
  controlPlane: number;
  controlPlaneExternal: number;
  agent: number;
}

function memorySampler(agentPid: number): { stop(): MemoryPeak } {
  const peak: MemoryPeak = { controlPlane: 0, controlPlaneExternal: 0, agent: 0 };
  const sample = (): void => {
    const own = process.memoryUsage();
    peak.controlPlane = Math.max(peak.controlPlane, own.rss);
    peak.controlPlaneExternal = Math.max(peak.controlPlaneExternal, own.external);
    peak.agent = Math.max(peak.agent, processRssBytes(agentPid) ?? 0);
  };
  sample();
  const timer = setInterval(sample, 100);
  return {
    stop: () => {
      clearInterval(timer);
      sample();
      return peak;
    },
  };
}

async function transfer(client: Client, path: Path, mode: 'download' | 'upload', mib: number, agentPid: number, kubectlPid?: number): Promise<TransferFigure> {
  const cp0 = process.cpuUsage();
  const agent0 = processCpuSeconds(agentPid);
  const kubectl0 = kubectlPid === undefined ? 0 : processCpuSeconds(kubectlPid);
  const machine0 = machineBusySeconds().busy;
  const sampler = memorySampler(agentPid);
  const result = await client.run<{ bytes: number; ms: number }>(path, mode, mib * 1024 * 1024);
  const cp = process.cpuUsage(cp0);
  const memoryPeakBytes = sampler.stop();
  if (result.bytes !== mib * 1024 * 1024) throw new Error(`${mode}: ${result.bytes} bytes arrived, not ${mib} MiB`);
  return {
    mibPerSecond: mib / (result.ms / 1000),
    cpuSeconds: {
      controlPlane: (cp.user + cp.system) / 1e6,
      agent: processCpuSeconds(agentPid) - agent0,
      ...(kubectlPid === undefined ? {} : { kubectl: processCpuSeconds(kubectlPid) - kubectl0 }),
      machine: machineBusySeconds().busy - machine0,
    },
    memoryPeakBytes,
  };
}

const fmtTransfer = (t: TransferFigure): string =>
  `${t.mibPerSecond.toFixed(0)} MiB/s (CPU-s: ${t.cpuSeconds.kubectl === undefined ? '' : `kubectl ${t.cpuSeconds.kubectl.toFixed(1)}, `}control plane ${t.cpuSeconds.controlPlane.toFixed(1)}, agent ${t.cpuSeconds.agent.toFixed(1)}, machine ${t.cpuSeconds.machine.toFixed(1)}; control plane Buffers peak ${fmtMiB(t.memoryPeakBytes.controlPlaneExternal)})`;

interface SmallFigure {
  readonly requests: number;
  readonly errors: number;
  readonly seconds: number;
  readonly p50: number;
  readonly p99: number;
}

const fmtSmall = (s: SmallFigure): string => `${Math.round(s.requests / s.seconds).toLocaleString('en-US')} req/s, p50 ${fmtTime(s.p50)}, p99 ${fmtTime(s.p99)}${s.errors > 0 ? `, ${s.errors} errors` : ''}`;

/** Times `runs` calls of `op` one after another, after one untimed call. */
async function timeRuns(runs: number, op: () => Promise<void>): Promise<number[]> {
  await op();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = nowMs();
    await op();
    samples.push(nowMs() - t0);
  }
  return samples;
}

interface Figures {
  portForward: Record<string, { download?: TransferFigure; upload?: TransferFigure }>;
  direct: { download?: TransferFigure; upload?: TransferFigure };
  small?: { portForward: SmallFigure; direct: SmallFigure; connections: number };
  exec: Record<string, { p50: number; p99: number; samples: number[] }>;
  logs: Record<string, { p50: number; p99: number; samples: number[] }>;
  rssBytes?: { controlPlane: { before: number; peak: number; after: number; afterGc: number; buffersPeak: number; buffersAfterGc: number; heapAfterGc: number; buffersAfterSessionsClosed?: number }; agent: { before: number; peak: number; after: number } };
}

async function waitForPod(env: RuncBenchSite, app: string): Promise<BenchPod & { ip: string }> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const pod = (await env.pods(app)).find((p) => p.ready && p.ip !== undefined);
    if (pod?.ip !== undefined) return { ...pod, ip: pod.ip };
    if (Date.now() > deadline) throw new Error(`no Ready pod of ${app} after 90 s`);
    await sleep(250);
  }
}

/**
 * `npm run bench -- streams`: port-forward throughput and small requests, exec round trips
 * and log latency through the site tunnel, each next to the same work without the tunnel.
 */
export async function benchStreams(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (options === undefined) {
    console.log(HELP);
    return;
  }
  if (process.getuid?.() !== 0) throw new Error('the streams bench runs runc pods: it needs root');
  const programs = findRuntimePrograms();
  const binaries = { newest: kubectlNewest(), '1.20': kubectl120() } as const;
  const label = { newest: 'kubectl newest (WebSocket)', '1.20': 'kubectl 1.20 (SPDY)' } as const;
  const work = mkdtempSync(join(tmpdir(), 'edgeplane-bench-streams-'));
  const script = join(work, 'client.cjs');
  writeFileSync(script, STREAM_CLIENT);
  const client = new Client(script, programs.ip);
  const started: Array<{ stop(): Promise<void> | void }> = [];
  const rows: Row[] = [];
  const verdicts: string[] = [];
  const figures: Figures = { portForward: {}, direct: {}, exec: {}, logs: {} };

  progress('starting the control plane and the runc site');
  const env = await startRuncBenchSite({ nodes: 1, cpu: '4', memory: '4Gi' }, progress);
  const cli = (which: 'newest' | '1.20') => ({ kubeconfig: env.kubeconfig, cacheDir: join(work, `kube-${which}`) });
  try {
    // A whole CPU's request: cpu.shares 1024 like any process on the machine (1m would give the pod the least share of a busy machine).
    await env.createDeployment('srv', 1, { command: ['node', '-e', POD_SERVER], cpu: '1' });
    await env.createDeployment('clock', 1, { command: ['node', '-e', POD_CLOCK], cpu: '1' });
    const srv = await waitForPod(env, 'srv');
    const clock = await waitForPod(env, 'clock');
    const direct: Path = { host: srv.ip, port: 8080, netns: env.netns };
    for (let tries = 0; ; tries++) {
      try {
        await client.run(direct, 'ready');
        break;
      } catch (error) {
        if (tries > 40) throw error;
        await sleep(250);
      }
    }
    progress(`pods Ready: ${srv.name} (${srv.ip}), ${clock.name}`);

    // exec
    const runcId = podContainerId(srv.uid, `${CONTAINER}-0`);
    const runcArgs = ['--root', runcStateRoot(env.netns), 'exec', runcId, 'true'];
    const runcEnv = { ...process.env, ...programs.runc.env };
    progress(`exec: ${options.execRuns} runs each of runc exec, kubectl exec (both), client-node Exec`);
    const execs: Array<[string, () => Promise<void>]> = [['runc exec', async () => void (await run(programs.runc.path, runcArgs, runcEnv))]];
    for (const which of ['newest', '1.20'] as const) {
      execs.push([`${label[which]} exec`, async () => {
        const r = await runKubectl(binaries[which], ['exec', srv.name, '-c', CONTAINER, '--', 'true'], cli(which));
        if (r.status !== 0) throw new Error(`kubectl exec: ${r.status} ${r.stderr}`);
      }]);
      execs.push([`${label[which]} version --client`, async () => {
        const r = await runKubectl(binaries[which], ['version', '--client'], cli(which));
        if (r.status !== 0) throw new Error(`kubectl version: ${r.status} ${r.stderr}`);
      }]);
    }
    const kc = new KubeConfig();
    kc.loadFromFile(env.kubeconfig);
    const exec = new Exec(kc);
    execs.push(['client-node Exec', () => new Promise<void>((resolve, reject) => {
      // The API refuses an exec of no stream (kube-apiserver's rule): stdout, as kubectl asks for.
      const stdout = new PassThrough().resume();
      exec.exec('default', srv.name, CONTAINER, ['true'], stdout, null, null, false, (status: V1Status) => (status.status === 'Success' ? resolve() : reject(new Error(`client-node Exec: ${JSON.stringify(status)}`)))).catch(reject);
    })]);
    for (const [name, op] of execs) {
      const samples = await timeRuns(options.execRuns, op);
      figures.exec[name] = { ...latencySummary(samples), samples };
    }
    const raw = figures.exec['runc exec'] as { p50: number; p99: number };
    for (const [name] of execs.slice(1)) {
      const f = figures.exec[name] as { p50: number; p99: number };
      rows.push({ area: 'exec', measure: name.endsWith('--client') ? `${name} (kubectl's start alone, no request)` : `${name} -- true`, value: fmtP(f), baseline: `runc exec: ${fmtP(raw)}`, ratio: `${(f.p50 / raw.p50).toFixed(1)}× (p50)` });
      if (name.endsWith(' exec')) verdicts.push(`${name} ≤ ${GOAL_EXEC_RATIO}× runc exec: ${f.p50 <= GOAL_EXEC_RATIO * raw.p50 ? 'met' : 'MISSED'} at p50 (${(f.p50 / raw.p50).toFixed(1)}×), ${f.p99 <= GOAL_EXEC_RATIO * raw.p99 ? 'met' : 'missed'} at p99 (${(f.p99 / raw.p99).toFixed(1)}×)`);
    }

    // logs
    const logFile = join(env.home, 'runc', env.site, 'pods', clock.uid, 'containers', CONTAINER, '0', 'container.log');
    if (!existsSync(logFile)) throw new Error(`no container log at ${logFile}`);
    progress(`logs: ${options.logLines} lines through tail -F, kubectl logs -f (both), client-node Log, all at once`);
    const clocks: Record<string, LineClock> = {};
    const tail = spawn('tail', ['-F', '-n', '0', logFile], { stdio: ['ignore', 'pipe', 'ignore'] });
    started.push({ stop: () => void tail.kill('SIGKILL') });
    clocks['tail -F'] = new LineClock(options.logLines, { skip: SKIPPED_LOG_LINES, stamp: (line) => line.split(' ').at(-1) });
    tail.stdout.on('data', (chunk: Buffer) => clocks['tail -F']?.data(chunk));
    for (const which of ['newest', '1.20'] as const) {
      const name = `${label[which]} logs -f`;
      const child: ChildProcess = spawnKubectl(binaries[which], ['logs', '-f', clock.name, '-c', CONTAINER, '--tail=0'], cli(which));
      started.push({ stop: () => void child.kill('SIGKILL') });
      const lineClock = new LineClock(options.logLines, { skip: SKIPPED_LOG_LINES });
      clocks[name] = lineClock;
      child.stdout?.on('data', (chunk: Buffer) => lineClock.data(chunk));
    }
    const logOut = new PassThrough();
    const nodeClock = new LineClock(options.logLines, { skip: SKIPPED_LOG_LINES });
    clocks['client-node Log follow'] = nodeClock;
    logOut.on('data', (chunk: Buffer) => nodeClock.data(chunk));
    const controller = await new Log(kc).log('default', clock.name, CONTAINER, logOut, { follow: true, tailLines: 0 });
    started.push({ stop: () => controller.abort() });
    const logDeadline = sleep(options.logLines * 50 * 3 + 30_000).then(() => {
      throw new Error(`log readers did not see ${options.logLines} lines: ${Object.entries(clocks).map(([n, c]) => `${n} ${c.samples.length}`).join(', ')}`);
    });
    await Promise.race([Promise.all(Object.values(clocks).map((c) => c.done)), logDeadline]);
    for (const [name, c] of Object.entries(clocks)) figures.logs[name] = { ...latencySummary(c.samples), samples: c.samples };
    for (const s of started.splice(0)) await s.stop();
    const tailFigure = figures.logs['tail -F'] as { p50: number; p99: number };
    for (const [name, f] of Object.entries(figures.logs)) {
      if (name === 'tail -F') continue;
      rows.push({ area: 'logs', measure: `${name}: container's write → line read (${f.samples.length} lines)`, value: fmtP(f), baseline: `tail -F of the CRI log file: ${fmtP(tailFigure)}`, ratio: `+${(f.p99 - tailFigure.p99).toFixed(1)} ms (p99)` });
      verdicts.push(`${name} p99 ≤ ${GOAL_LOG_P99_MS} ms: ${f.p99 <= GOAL_LOG_P99_MS ? 'met' : 'MISSED'} (${fmtTime(f.p99)})`);
    }

    // port-forward: small requests, then the transfers
    const forwards: Partial<Record<'newest' | '1.20', KubectlPortForward & { pid?: number }>> = {};
    for (const which of options.kubectls) {
      const forward = await startKubectlPortForward(binaries[which], srv.name, 8080, cli(which));
      const pid = childPid(`kube-${which}`, 'port-forward');
      forwards[which] = { ...forward, stop: () => forward.stop(), ...(pid === undefined ? {} : { pid }) };
      started.push(forward);
    }
    const smallVia = forwards.newest ?? forwards['1.20'];
    const smallWhich = forwards.newest === undefined ? '1.20' : 'newest';
    if (smallVia !== undefined) {
      progress(`small requests: ${options.connections} connections for ${options.seconds} s through ${label[smallWhich]} port-forward, then direct`);
      const through = await client.run<SmallFigure>({ host: '127.0.0.1', port: smallVia.port }, 'small', options.connections, options.seconds);
      const straight = await client.run<SmallFigure>(direct, 'small', options.connections, options.seconds);
      figures.small = { portForward: through, direct: straight, connections: options.connections };
      const share = through.requests / through.seconds / (straight.requests / straight.seconds);
      rows.push({ area: 'port-forward', measure: `${options.connections} keep-alive connections, GET 100 B, ${options.seconds} s (${label[smallWhich]})`, value: fmtSmall(through), baseline: `direct to the pod IP: ${fmtSmall(straight)}`, ratio: `${(share * 100).toFixed(0)}% of the rate` });
    }

    const modes = options.upload ? (['download', 'upload'] as const) : (['download'] as const);
    const rss0 = { controlPlane: process.memoryUsage.rss(), agent: processRssBytes(env.agentPid) ?? Number.NaN };
    const transfers: TransferFigure[] = [];
    for (const mode of modes) {
      progress(`${options.mib} MiB ${mode}: direct to the pod IP`);
      const base = await transfer(client, direct, mode, options.mib, env.agentPid);
      figures.direct[mode] = base;
      for (const which of options.kubectls) {
        const forward = forwards[which] as KubectlPortForward & { pid?: number };
        progress(`${options.mib} MiB ${mode}: ${label[which]} port-forward`);
        const profiler = options.cpuProf !== undefined && which === 'newest' && mode === 'download' ? await startInProcessProfiler() : undefined;
        const figure = await transfer(client, { host: '127.0.0.1', port: forward.port }, mode, options.mib, env.agentPid, forward.pid);
        if (profiler !== undefined && options.cpuProf !== undefined) progress(`control plane CPU profile: ${await profiler.stop(options.cpuProf, 'streams-port-forward')}`);
        (figures.portForward[which] ??= {})[mode] = figure;
        transfers.push(figure);
        const share = figure.mibPerSecond / base.mibPerSecond;
        rows.push({ area: 'port-forward', measure: `${options.mib} MiB ${mode}, ${label[which]}`, value: fmtTransfer(figure), baseline: `direct to the pod IP: ${fmtTransfer(base)}`, ratio: `${(share * 100).toFixed(0)}%` });
        verdicts.push(`port-forward ${mode} (${label[which]}) ≥ ${GOAL_PORT_FORWARD_SHARE * 100}% of direct: ${share >= GOAL_PORT_FORWARD_SHARE ? 'met' : 'MISSED'} (${(share * 100).toFixed(0)}%)`);
      }
    }
    const peakOf = (key: keyof MemoryPeak): number => Math.max(...transfers.map((t) => t.memoryPeakBytes[key]));
    await sleep(1000);
    const after = { controlPlane: process.memoryUsage.rss(), agent: processRssBytes(env.agentPid) ?? Number.NaN };
    // What the control plane still holds once its garbage is collected (npm run bench runs node with --expose-gc).
    (globalThis as { gc?: () => void }).gc?.();
    const afterGc = process.memoryUsage();
    figures.rssBytes = {
      controlPlane: { before: rss0.controlPlane, peak: peakOf('controlPlane'), after: after.controlPlane, afterGc: afterGc.rss, buffersPeak: peakOf('controlPlaneExternal'), buffersAfterGc: afterGc.external, heapAfterGc: afterGc.heapUsed },
      agent: { before: rss0.agent, peak: peakOf('agent'), after: after.agent },
    };
    // Whether what it holds belongs to the kubectl sessions: end them, then collect again.
    for (const s of started.splice(0)) await s.stop();
    await sleep(500);
    (globalThis as { gc?: () => void }).gc?.();
    const closedGc = process.memoryUsage();
    figures.rssBytes.controlPlane.buffersAfterSessionsClosed = closedGc.external;
    for (const who of ['controlPlane', 'agent'] as const) {
      const r = figures.rssBytes[who];
      const gcText = who === 'controlPlane' ? `, after a GC ${fmtMiB(afterGc.rss)} (Buffers ${fmtMiB(afterGc.external)}, heap ${fmtMiB(afterGc.heapUsed)}; Buffers peak ${fmtMiB(peakOf('controlPlaneExternal'))}; Buffers once the port-forward sessions ended ${fmtMiB(closedGc.external)})` : '';
      rows.push({ area: 'memory', measure: `${who === 'agent' ? 'agent process' : 'control plane (this process)'} VmRSS over the ${options.mib} MiB transfers`, value: `peak ${fmtMiB(r.peak)}, 1 s after ${fmtMiB(r.after)}${gcText}`, baseline: `before ${fmtMiB(r.before)}`, ratio: `+${fmtMiB(r.peak - r.before)} (peak)` });
    }
  } finally {
    for (const s of started.splice(0)) await Promise.resolve(s.stop()).catch(() => undefined);
    progress('cleaning up: deleting the Deployments, stopping the agent, removing the site network');
    await env.deleteDeployment('srv').catch(() => undefined);
    await env.deleteDeployment('clock').catch(() => undefined);
    for (let i = 0; i < 60 && (await env.pods('srv').catch(() => [])).length + (await env.pods('clock').catch(() => [])).length > 0; i++) await sleep(500);
    await env.close();
    rmSync(work, { recursive: true, force: true });
  }
  printTable('Pod streams through the site tunnel (kubectl → control plane → agent → pod) vs the same work without it', rows);
  console.log('');
  for (const verdict of verdicts) console.log(`goal ${verdict}`);
  if (options.json !== undefined) {
    writeFileSync(options.json, JSON.stringify(figures, null, 2) + '\n');
    progress(`figures written to ${options.json}`);
  }
}
