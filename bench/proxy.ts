import { spawn, type ChildProcess } from 'node:child_process';
import { runProgram as run } from './run-program.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { findRuntimePrograms, podNamespaceName, servicePrograms, siteCgroupParent } from '../src/site-agent/runtimes/runc/index.js';
import { cgroupCpuSeconds, machineBusySeconds, processCpuSeconds } from './proc-stats.js';
import { PROXY_CLIENT, PROXY_POD_SERVER } from './proxy-programs.js';
import { changeRow, proxyTable, shareRow, type ProxyRow } from './proxy-report.js';
import { startRuncBenchSite, type BenchPod, type RuncBenchSite } from './runc-bench-site.js';
import { progress } from './stats.js';
import { openWatchConnection } from './watch-connection.js';
import { runWrk, type WrkResult } from './wrk.js';

const HELP = `Usage: npm run bench -- proxy [options]

The Service data plane of a runc site (issue 23, docs/RUNTIME.md): the site's HAProxy in the
site's network namespace, each figure next to the same load sent straight to the pod's IP in
the same run (needs root; runc, conmon, catatonit, ip, haproxy, dnsmasq and wrk from .tools/).
A control plane in this process (memory store, HTTPS), virtual cluster default/bench, one site
run by \`edgeplane site --runtime runc --host-image\` in its own process
(bench/runc-bench-site.ts). Pods (host image, injected sidecar): "srv" (1 pod, requests 1 CPU,
limits 2 CPUs and 512Mi, so the tiny flavor's 100m CPU limit does not apply) runs bench/proxy-programs.ts's servers — HTTP/1.1 on 8080 (GET /big?bytes=N, GET /small: 100
bytes, /whoami), TCP on 9100 (sends the N bytes asked for), gRPC h2c on 50051 (unary echo) —;
"flip" (2 pods, readiness probe GET /healthz every 1 s) the same; "client" idles: every client
below is a process of this machine run inside the client pod's network namespace (\`ip netns
exec\`), so the proxy sees the pod's address, and sends the same load to a Service's ClusterIP
(through the proxy) and to srv's pod IP (direct: the site bridge and veths only). Services on
srv: bench-tcp (TCP_PROXY, 80→8080, 9100→9100), bench-http (HTTP_PROXY, 80→8080), bench-grpc
(HTTP_PROXY + svc.io/http2-enable, 50051→50051), bench-mode (80→8080, its proxy type flipped);
bench-flip (80→8080) on flip.

  bulk      one transfer of --mib MiB, client counting bytes: TCP (9100) through bench-tcp vs
            direct; HTTP GET /big through bench-http vs direct. MiB/s from the client's request to
            the last byte; CPU seconds of the client, of HAProxy (master and workers), of srv's
            pod (cgroup) and of the whole machine (/proc/stat) during the transfer.
  small     wrk (1 thread, --connections keep-alive HTTP/1.1 connections, --seconds s, GET /small)
            through bench-tcp, through bench-http, and direct: requests/s, p50/p99.
  grpc      a @grpc/grpc-js client, one channel with --grpc-concurrency unary calls in flight for
            --grpc-seconds s (100-byte messages, after one untimed call): calls/s and p50/p99
            through bench-grpc vs direct; then again after a reload (a new Service), which
            turns srv's servers, added at run time (\`add server\`) when its pod became ready,
            into servers of the configuration file.
  changes   --trials trials of each, timed by a prober in the client pod (a GET on a new
            connection every 10 ms, 300 ms each, until the answer shows the change):
            new Service  its create request → the first 200 from its ClusterIP (then deleted,
                         and unreachable, before the next);
            endpoints    a flip pod made ready (GET /ready on its IP, after /unready took it out)
                         → its first answer through bench-flip, timed from the Endpoints event
                         that lists it ready (a watch of the virtual cluster's Endpoints); the
                         time from the /ready request (readiness probe period included) beside it;
            proxy type   the PATCH of bench-mode's svc.io/proxy-type TCP_PROXY → HTTP_PROXY → the
                         first answer carrying X-Forwarded-For (and HTTP_PROXY → TCP_PROXY → the
                         first without it, beside it).

Goals (issue 23): TCP_PROXY ≥ 80 % of direct bulk throughput and ≥ 70 % of the direct request
rate; HTTP_PROXY ≥ 60 % of the direct request rate; gRPC through the proxy ≥ 60 % of direct;
change → traffic p99 ≤ 1 s. The machine's cores are shared by the client, the proxy, the server
and anything else running: the load average is printed with the figures.

Options:
  --only LIST             comma-separated groups to run: bulk, small, grpc, changes (default all)
  --mib N                 size of each bulk transfer in MiB (default 1024)
  --connections N         wrk connections (default 32)
  --seconds S             length of each wrk run (default 10)
  --grpc-concurrency N    gRPC calls in flight (default 32)
  --grpc-seconds S        length of each gRPC run (default 10)
  --trials N              trials per change figure (default 20)
  --json FILE             also write the figures as JSON to FILE
  -h, --help              this text
Quick run: --mib 64 --seconds 3 --grpc-seconds 3 --trials 5`;

const GOAL_TCP_BULK = 0.8;
const GOAL_TCP_RATE = 0.7;
const GOAL_HTTP_RATE = 0.6;
const GOAL_GRPC_RATE = 0.6;
const GOAL_CHANGE_P99_MS = 1000;
const GROUPS = ['bulk', 'small', 'grpc', 'changes'] as const;
type Group = (typeof GROUPS)[number];

interface Options {
  readonly only: ReadonlySet<Group>;
  readonly mib: number;
  readonly connections: number;
  readonly seconds: number;
  readonly grpcConcurrency: number;
  readonly grpcSeconds: number;
  readonly trials: number;
  readonly json?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      only: { type: 'string', default: GROUPS.join(',') },
      mib: { type: 'string', default: '1024' },
      connections: { type: 'string', default: '32' },
      seconds: { type: 'string', default: '10' },
      'grpc-concurrency': { type: 'string', default: '32' },
      'grpc-seconds': { type: 'string', default: '10' },
      trials: { type: 'string', default: '20' },
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
  const only = values.only.split(',').map((g) => g.trim());
  const unknown = only.filter((g) => !(GROUPS as readonly string[]).includes(g));
  if (unknown.length > 0) throw new Error(`--only takes ${GROUPS.join(', ')}, not "${unknown.join(', ')}"`);
  return {
    only: new Set(only as Group[]),
    mib: whole('mib', values.mib),
    connections: whole('connections', values.connections),
    seconds: whole('seconds', values.seconds),
    grpcConcurrency: whole('grpc-concurrency', values['grpc-concurrency']),
    grpcSeconds: whole('grpc-seconds', values['grpc-seconds']),
    trials: whole('trials', values.trials),
    ...(values.json === undefined ? {} : { json: values.json }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const load = (): string => loadavg().map((n) => n.toFixed(2)).join(', ');


/** Where a load goes: a Service's ClusterIP (through the proxy) or the pod's IP (direct). */
interface Target {
  readonly host: string;
  readonly port: number;
}

/** CPU seconds while a figure runs: HAProxy's processes, the server pod's cgroup, the whole machine. */
interface CpuUse {
  readonly haproxy: number;
  readonly server: number;
  readonly machine: number;
}

/** The pids of the site's HAProxy (master and workers: their command line names its configuration). */
function haproxyPids(config: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes('\0netns\0exec\0') || !cmdline.includes(config)) continue;
      pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

function cpuMeter(haproxyConfig: string, serverCgroup: string): { stop(): CpuUse } {
  const haproxyNow = (): Map<number, number> => new Map(haproxyPids(haproxyConfig).map((pid) => [pid, (() => { try { return processCpuSeconds(pid); } catch { return 0; } })()]));
  const h0 = haproxyNow();
  const s0 = cgroupCpuSeconds(serverCgroup);
  const m0 = machineBusySeconds().busy;
  return {
    stop: () => {
      let haproxy = 0;
      for (const [pid, seconds] of haproxyNow()) haproxy += seconds - (h0.get(pid) ?? 0);
      return { haproxy, server: cgroupCpuSeconds(serverCgroup) - s0, machine: machineBusySeconds().busy - m0 };
    },
  };
}

const fmtCpu = (c: CpuUse, client?: number): string => `CPU-s: ${client === undefined ? '' : `client ${client.toFixed(1)}, `}HAProxy ${c.haproxy.toFixed(1)}, server ${c.server.toFixed(1)}, machine ${c.machine.toFixed(1)}`;

interface Bulk {
  readonly mibPerSecond: number;
  readonly clientCpu: number;
  readonly cpu: CpuUse;
}
interface Small extends WrkResult {
  readonly cpu: CpuUse;
}
interface Grpc {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  readonly errors: number;
  readonly clientCpu: number;
  readonly cpu: CpuUse;
}

interface Figures {
  machine: { cpus: number; loadAtStart: string; loadAtEnd?: string };
  bulk: Record<string, { proxy: Bulk; direct: Bulk; load: string }>;
  small: Record<string, Small & { load: string }>;
  grpc?: { proxy: Grpc; direct: Grpc; load: string; afterReload: Grpc };
  changes: Record<string, number[]>;
}

/**
 * The client program's probe mode, kept running in the client pod's network namespace: each
 * {@link until} sends one command and resolves with the Date.now() of the answer that met it.
 */
class Prober {
  private readonly child: ChildProcess;
  private readonly waiting = new Map<number, { resolve: (at: number) => void; reject: (error: Error) => void }>();
  private next = 0;
  private stderr = '';

  constructor(ip: string, netns: string, script: string) {
    this.child = spawn(ip, ['netns', 'exec', netns, process.execPath, script, 'probe'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let buffered = '';
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        const answer = JSON.parse(buffered.slice(0, at)) as { id: number; at?: number; error?: string };
        buffered = buffered.slice(at + 1);
        const waiter = this.waiting.get(answer.id);
        this.waiting.delete(answer.id);
        if (answer.at !== undefined) waiter?.resolve(answer.at);
        else waiter?.reject(new Error(`probe: ${answer.error ?? 'no answer'}`));
      }
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (this.stderr = (this.stderr + chunk).slice(-2000)));
    this.child.on('exit', (code) => {
      for (const waiter of this.waiting.values()) waiter.reject(new Error(`the prober exited (${code}): ${this.stderr}`));
      this.waiting.clear();
    });
  }

  /** Resolves with the time (Date.now()) of the first answer of `GET <path>` meeting `until` (see PROXY_CLIENT). */
  until(target: Target, until: string, options: { path?: string; timeoutMs?: number } = {}): Promise<number> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin?.write(`${JSON.stringify({ id, host: target.host, port: target.port, path: options.path ?? '/whoami', until, timeoutMs: options.timeoutMs ?? 15_000 })}\n`);
    });
  }

  close(): void {
    this.child.stdin?.end();
    this.child.kill('SIGKILL');
  }
}

interface ServiceSpec {
  readonly name: string;
  readonly app: string;
  readonly ports: ReadonlyArray<readonly [number, number]>;
  readonly annotations?: Record<string, string>;
}

async function createService(env: RuncBenchSite, s: ServiceSpec): Promise<string> {
  const response = await env.vk8s('POST', '/api/v1/namespaces/default/services', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: s.name, ...(s.annotations === undefined ? {} : { annotations: s.annotations }) },
    spec: { selector: { app: s.app }, ports: s.ports.map(([port, targetPort]) => ({ name: `p${port}`, protocol: 'TCP', port, targetPort })) },
  });
  const ip = response.json<{ spec?: { clusterIP?: string } }>().spec?.clusterIP;
  if (ip === undefined || ip === '' || ip === 'None') throw new Error(`Service ${s.name} has no ClusterIP`);
  return ip;
}

async function readyPods(env: RuncBenchSite, app: string, count: number): Promise<Array<BenchPod & { ip: string }>> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const pods = (await env.pods(app)).filter((p): p is BenchPod & { ip: string } => p.ready && p.ip !== undefined);
    if (pods.length >= count) return pods.slice(0, count);
    if (Date.now() > deadline) throw new Error(`${pods.length} of ${count} pods of ${app} Ready after 120 s`);
    await sleep(250);
  }
}

/** An Endpoints object's ready addresses as the watch delivered them, with the time each event arrived. */
interface EndpointsEvent {
  readonly at: number;
  readonly ready: ReadonlySet<string>;
}

/**
 * `npm run bench -- proxy`: the site proxy's throughput, request rates, gRPC calls and change
 * → traffic times, each next to the same load sent straight to the pod.
 */
export async function benchProxy(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (options === undefined) {
    console.log(HELP);
    return;
  }
  if (process.getuid?.() !== 0) throw new Error('the proxy bench runs runc pods: it needs root');
  const programs = findRuntimePrograms();
  const service = servicePrograms(programs);
  if ('missing' in service) throw new Error(`the proxy bench needs the Service data plane: ${service.missing}`);
  // The client program runs from a temporary folder: it loads @grpc/grpc-js by this path.
  const grpcModule = fileURLToPath(import.meta.resolve('@grpc/grpc-js'));
  const work = mkdtempSync(join(tmpdir(), 'edgeplane-bench-proxy-'));
  const script = join(work, 'client.cjs');
  writeFileSync(script, PROXY_CLIENT);
  const figures: Figures = { machine: { cpus: cpus().length, loadAtStart: load() }, bulk: {}, small: {}, changes: {} };
  const rows: ProxyRow[] = [];
  progress(`load average ${figures.machine.loadAtStart} on ${figures.machine.cpus} CPUs; starting the control plane and the runc site`);
  const env = await startRuncBenchSite({ nodes: 1, cpu: '4', memory: '4Gi' }, progress);
  let prober: Prober | undefined;
  let watch: { destroy(): void } | undefined;
  try {
    // Limits of the whole machine: without them the workload flavor's (tiny: 100m CPU) would bound every figure.
    const server = { command: ['node', '-e', PROXY_POD_SERVER], cpu: '1', limits: { cpu: '2', memory: '512Mi' } };
    await env.createDeployment('srv', 1, server);
    await env.createDeployment('client', 1);
    await env.createDeployment('flip', 2, { ...server, cpu: '100m', readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 1, failureThreshold: 1, successThreshold: 1 } });
    const tcpIP = await createService(env, { name: 'bench-tcp', app: 'srv', ports: [[80, 8080], [9100, 9100]] });
    const httpIP = await createService(env, { name: 'bench-http', app: 'srv', ports: [[80, 8080]], annotations: { 'svc.io/proxy-type': 'HTTP_PROXY' } });
    const grpcIP = await createService(env, { name: 'bench-grpc', app: 'srv', ports: [[50051, 50051]], annotations: { 'svc.io/proxy-type': 'HTTP_PROXY', 'svc.io/http2-enable': 'true' } });
    const modeIP = await createService(env, { name: 'bench-mode', app: 'srv', ports: [[80, 8080]] });
    const flipIP = await createService(env, { name: 'bench-flip', app: 'flip', ports: [[80, 8080]] });
    const [srv] = await readyPods(env, 'srv', 1);
    const [client] = await readyPods(env, 'client', 1);
    const flips = await readyPods(env, 'flip', 2);
    if (srv === undefined || client === undefined) throw new Error('no srv or client pod');
    const clientNetns = podNamespaceName(env.netns, client.uid);
    progress(`pods Ready: ${srv.name} (${srv.ip}), ${client.name} (netns ${clientNetns}), ${flips.map((p) => `${p.name} (${p.ip})`).join(', ')}`);
    prober = new Prober(programs.ip, clientNetns, script);
    const http = (host: string): Target => ({ host, port: host === srv.ip ? 8080 : 80 });
    for (const target of [http(srv.ip), http(tcpIP), http(httpIP), http(modeIP), http(flipIP)]) await prober.until(target, 'up', { timeoutMs: 30_000 });
    const haproxyConfig = join(env.home, 'runc', env.site, 'service-proxy', 'haproxy', 'haproxy.cfg');
    progress(`every Service answers from the client pod; HAProxy runs as ${haproxyPids(haproxyConfig).length} processes`);
    const meter = (): { stop(): CpuUse } => cpuMeter(haproxyConfig, `${siteCgroupParent(env.netns)}/${srv.uid}`);
    const runClient = async <T>(mode: string, target: Target, ...rest: Array<string | number>): Promise<T> =>
      JSON.parse(await run(programs.ip, ['netns', 'exec', clientNetns, process.execPath, script, mode, target.host, String(target.port), ...rest.map(String)])) as T;

    if (options.only.has('bulk')) {
      const bytes = options.mib * 1024 * 1024;
      const transfer = async (mode: 'tcp-download' | 'http-download', target: Target): Promise<Bulk> => {
        const m = meter();
        const r = await runClient<{ bytes: number; ms: number; cpu: number }>(mode, target, bytes);
        const cpu = m.stop();
        if (r.bytes !== bytes) throw new Error(`${mode} from ${target.host}: ${r.bytes} bytes arrived, not ${bytes}`);
        return { mibPerSecond: options.mib / (r.ms / 1000), clientCpu: r.cpu, cpu };
      };
      const fmt = (b: Bulk): { value: number; text: string } => ({ value: b.mibPerSecond, text: `${b.mibPerSecond.toFixed(0)} MiB/s (${fmtCpu(b.cpu, b.clientCpu)})` });
      for (const [name, mode, proxy, direct, goal] of [
        ['TCP_PROXY', 'tcp-download', { host: tcpIP, port: 9100 }, { host: srv.ip, port: 9100 }, GOAL_TCP_BULK],
        ['HTTP_PROXY', 'http-download', http(httpIP), http(srv.ip), undefined],
      ] as const) {
        progress(`bulk: ${options.mib} MiB ${mode}, direct then through ${name}`);
        const l = load();
        const d = await transfer(mode, direct);
        const p = await transfer(mode, proxy);
        figures.bulk[name] = { proxy: p, direct: d, load: l };
        rows.push(shareRow(`${name}: one ${options.mib} MiB ${mode === 'tcp-download' ? 'TCP stream' : 'HTTP download'} (load ${l})`, fmt(p), fmt(d), goal));
      }
    }

    if (options.only.has('small')) {
      const wrk = async (host: string): Promise<Small> => {
        const m = meter();
        const target = http(host);
        const r = await runWrk({ url: `http://${target.host}:${target.port}`, path: '/small', connections: options.connections, seconds: options.seconds, netns: { name: clientNetns, ip: programs.ip } });
        return { ...r, cpu: m.stop() };
      };
      const fmt = (s: Small): { value: number; text: string } => ({
        value: s.rate,
        text: `${Math.round(s.rate).toLocaleString('en-US')} req/s, p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms${s.errors + s.socketErrors > 0 ? `, ${s.errors} non-2xx, ${s.socketErrors} socket errors` : ''} (${fmtCpu(s.cpu)})`,
      });
      progress(`small requests: wrk ${options.connections} connections × ${options.seconds} s, direct, through TCP_PROXY, through HTTP_PROXY`);
      const l = load();
      const direct = await wrk(srv.ip);
      const tcp = await wrk(tcpIP);
      const httpProxy = await wrk(httpIP);
      figures.small = { direct: { ...direct, load: l }, TCP_PROXY: { ...tcp, load: l }, HTTP_PROXY: { ...httpProxy, load: l } };
      rows.push(shareRow(`TCP_PROXY: GET 100 B, ${options.connections} keep-alive connections (load ${l})`, fmt(tcp), fmt(direct), GOAL_TCP_RATE));
      rows.push(shareRow(`HTTP_PROXY: GET 100 B, ${options.connections} keep-alive connections`, fmt(httpProxy), fmt(direct), GOAL_HTTP_RATE));
    }

    if (options.only.has('grpc')) {
      const grpc = async (target: Target): Promise<Grpc> => {
        const m = meter();
        const r = await runClient<{ calls: number; errors: number; seconds: number; p50: number; p99: number; cpu: number }>('grpc', target, options.grpcConcurrency, options.grpcSeconds, grpcModule);
        return { rate: r.calls / r.seconds, p50: r.p50, p99: r.p99, errors: r.errors, clientCpu: r.cpu, cpu: m.stop() };
      };
      const fmt = (g: Grpc): { value: number; text: string } => ({ value: g.rate, text: `${Math.round(g.rate).toLocaleString('en-US')} calls/s, p50 ${g.p50.toFixed(2)} ms, p99 ${g.p99.toFixed(2)} ms${g.errors > 0 ? `, ${g.errors} errors` : ''} (${fmtCpu(g.cpu, g.clientCpu)})` });
      progress(`gRPC: ${options.grpcConcurrency} unary calls in flight × ${options.grpcSeconds} s, direct then through HTTP_PROXY + http2-enable`);
      const l = load();
      const direct = await grpc({ host: srv.ip, port: 50051 });
      const proxy = await grpc({ host: grpcIP, port: 50051 });
      // A new Service reloads HAProxy: srv's servers, added at run time so far ('add server'), are then lines of the configuration file.
      progress('gRPC again after a reload (a new Service): srv in the configuration file instead of added at run time');
      const reloadIP = await createService(env, { name: 'bench-reload', app: 'srv', ports: [[80, 8080]] });
      await prober.until(http(reloadIP), 'up');
      const reloaded = await grpc({ host: grpcIP, port: 50051 });
      figures.grpc = { proxy, direct, load: l, afterReload: reloaded };
      rows.push(shareRow(`gRPC unary (@grpc/grpc-js, ${options.grpcConcurrency} in flight), HTTP_PROXY + http2-enable, servers added at run time (load ${l})`, fmt(proxy), fmt(direct), GOAL_GRPC_RATE));
      rows.push(shareRow('… the same after a reload (servers in the configuration file)', fmt(reloaded), fmt(direct)));
    }

    if (options.only.has('changes')) {
      const p = prober;
      // (a) a new Service → its ClusterIP answers
      progress(`changes: ${options.trials} new Services`);
      const created: number[] = [];
      for (let i = 0; i < options.trials; i++) {
        const name = `bench-new-${i}`;
        const t0 = Date.now();
        const ip = await createService(env, { name, app: 'srv', ports: [[80, 8080]] });
        created.push((await p.until(http(ip), 'up')) - t0);
        await env.vk8s('DELETE', `/api/v1/namespaces/default/services/${name}`);
        await p.until(http(ip), 'down');
      }
      figures.changes['new Service'] = created;
      rows.push(changeRow(`new Service: create request → first answer on its ClusterIP (load ${load()})`, created, GOAL_CHANGE_P99_MS));

      // (b) an Endpoints change: a pod made ready → its first answer through the proxy
      progress(`changes: ${options.trials} readiness flips of a bench-flip pod`);
      const events: EndpointsEvent[] = [];
      watch = await openWatchConnection(
        env.vk8sWatch('/api/v1/namespaces/default/endpoints?watch=true'),
        (line) => {
          if (line.trim() === '') return;
          const event = JSON.parse(line) as { object?: { metadata?: { name?: string }; subsets?: Array<{ addresses?: Array<{ ip: string }> }> } };
          if (event.object?.metadata?.name !== 'bench-flip') return;
          events.push({ at: Date.now(), ready: new Set((event.object.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip))) });
        },
        () => undefined,
      );
      const fromEndpoints: number[] = [];
      const fromFlip: number[] = [];
      const waitForEvent = async (from: number, holds: (e: EndpointsEvent) => boolean, what: string): Promise<EndpointsEvent> => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          const event = events.slice(from).find(holds);
          if (event !== undefined) return event;
          if (Date.now() > deadline) throw new Error(`no Endpoints event of bench-flip ${what} within 15 s`);
          await sleep(10);
        }
      };
      for (let i = 0; i < options.trials; i++) {
        const pod = flips[i % flips.length] as BenchPod & { ip: string };
        const podTarget = { host: pod.ip, port: 8080 };
        let mark = events.length;
        await p.until(podTarget, 'up', { path: '/unready' });
        await waitForEvent(mark, (e) => !e.ready.has(pod.ip), `without ${pod.ip}`);
        await sleep(200);
        mark = events.length;
        const answered = p.until(http(flipIP), `pod:${pod.name}`);
        const t0 = Date.now();
        await p.until(podTarget, 'up', { path: '/ready' });
        const at = await answered;
        const event = await waitForEvent(mark, (e) => e.ready.has(pod.ip), `with ${pod.ip}`);
        fromEndpoints.push(at - event.at);
        fromFlip.push(at - t0);
      }
      watch.destroy();
      watch = undefined;
      figures.changes['endpoints: event → answer'] = fromEndpoints;
      figures.changes['endpoints: /ready → answer'] = fromFlip;
      rows.push(changeRow(`Endpoints change: the event listing a pod ready → its first answer through the proxy (load ${load()})`, fromEndpoints, GOAL_CHANGE_P99_MS));
      rows.push(changeRow("… from the pod's /ready (readiness probe, 1 s period, and status report included)", fromFlip));

      // (c) the proxy type changed on a live Service
      progress(`changes: ${options.trials} proxy-type flips TCP_PROXY ↔ HTTP_PROXY of bench-mode`);
      const toHttp: number[] = [];
      const toTcp: number[] = [];
      const setType = (type: string): Promise<unknown> => env.vk8s('PATCH', '/api/v1/namespaces/default/services/bench-mode', { metadata: { annotations: { 'svc.io/proxy-type': type } } });
      await p.until(http(modeIP), 'no-xff');
      for (let i = 0; i < options.trials; i++) {
        for (const [type, until, samples] of [['HTTP_PROXY', 'xff', toHttp], ['TCP_PROXY', 'no-xff', toTcp]] as const) {
          const switched = p.until(http(modeIP), until);
          const t0 = Date.now();
          await setType(type);
          samples.push((await switched) - t0);
        }
      }
      figures.changes['proxy type: TCP → HTTP'] = toHttp;
      figures.changes['proxy type: HTTP → TCP'] = toTcp;
      rows.push(changeRow(`svc.io/proxy-type TCP_PROXY → HTTP_PROXY: PATCH → first answer with X-Forwarded-For (load ${load()})`, toHttp, GOAL_CHANGE_P99_MS));
      rows.push(changeRow('… and back, HTTP_PROXY → TCP_PROXY: PATCH → first answer without it', toTcp, GOAL_CHANGE_P99_MS));
    }
  } finally {
    watch?.destroy();
    prober?.close();
    progress('cleaning up: deleting the Deployments, stopping the agent, removing the site network');
    for (const name of ['srv', 'client', 'flip']) await env.deleteDeployment(name).catch(() => undefined);
    for (let i = 0; i < 60; i++) {
      const left = (await Promise.all(['srv', 'client', 'flip'].map((app) => env.pods(app).catch(() => [])))).flat();
      if (left.length === 0) break;
      await sleep(500);
    }
    await env.close();
    rmSync(work, { recursive: true, force: true });
  }
  figures.machine.loadAtEnd = load();
  console.log(`\nThe Service proxy of a runc site (HAProxy in the site's network namespace) vs the same load straight to the pod IP, from inside the client pod's network namespace.`);
  console.log(`${figures.machine.cpus} CPUs shared by the client, HAProxy, the server pod, the agent and the control plane; load average (1, 5, 15 min) at the start ${figures.machine.loadAtStart}, at the end ${figures.machine.loadAtEnd}.\n`);
  console.log(proxyTable(rows));
  if (options.json !== undefined) {
    writeFileSync(options.json, `${JSON.stringify(figures, null, 2)}\n`);
    progress(`figures written to ${options.json}`);
  }
}
