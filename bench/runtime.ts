import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SIDECAR_CONTAINER_NAME } from '../src/api/sidecar-injection.js';
import { findRuntimePrograms, SIDECAR_NODE_FLAGS } from '../src/site-agent/runtimes/runc/index.js';
import { PodTimeline, type PodTimes } from './pod-timeline.js';
import { cgroupCpuSeconds, fmtMiB, machineBusySeconds, processCpuSeconds, processRssBytes } from './proc-stats.js';
import { rawRuncStarts, type RawStarts } from './raw-runc.js';
import { startRuncBenchSite, type RuncBenchSite } from './runc-bench-site.js';
import { latencySummary, nowMs, percentile, printTable, progress, type Row } from './stats.js';

const HELP = `Usage: npm run bench -- runtime [options]

Real pods on a runc site (needs root; runc, conmon, catatonit and ip from .tools/). A control
plane in this process (memory store, HTTPS), virtual cluster default/bench, and one site run
by \`edgeplane site --runtime runc --host-image\` in its own process (registered with a
registration token, as a user starts it). Every pod is a Deployment's: one container running
\`sleep 3600\` on the host image (requests 1m CPU, 4Mi), plus the sidecar the platform injects
(\`edgeplane sidecar\` in its own container; the pod is Ready only once it is READY: its
identity issued through the site's relay, the six files written).

Times are taken from the moment the bench sends the Deployment's create (or scale) request to
the moment an event of ONE watch of the virtual cluster's pods (?watch=true, opened before)
shows the pod with status.phase Running, and with the Ready condition True. Each pod's start
is: the controller makes the pod, the scheduler binds it, the agent's watch gets it, the
sandbox (network namespace, veth, catatonit infra container), the sidecar container, READY,
the workload container, the status report (batched every 100 ms), the watch event. The
phase stays Pending while a container waits (kubelet's rule), and the workload waits for the
sidecar's READY: Running and Ready come together for pods without readiness probes. The time
the sidecar's container was first shown running is given beside them.

  one at a time  --sequential single-replica Deployments, each created once the previous pod
                 is Ready (one untimed Deployment first). p99 of 20 samples is their maximum.
  at once        one Deployment of --burst replicas: the time until all are Running and all
                 Ready, and each pod's own times.
  sidecar RSS    VmRSS of the sidecar's processes (the container's cgroup.procs under
                 /sys/fs/cgroup/memory/edgeplane/<site netns>/<pod uid>/edgeplane-sidecar-<n>)
                 of the one-at-a-time pods, and of the idle pods after the CPU window.
  agent CPU      the at-once Deployment scaled to --idle-pods, all Ready, 5 s to settle, then
                 utime+stime of the agent's process (/proc/<pid>/stat) over --cpu-seconds, as %
                 of one core.
  CPU            while the at-once pods and the scaled-up ones start: the CPU seconds the
                 machine was busy (/proc/stat), split into the site's containers (cpuacct of
                 /edgeplane/<site netns>: sidecars, infra, sleep), runc + conmon + ip (the agent
                 runs in a cgroup of its own: its cgroup's cpuacct less the agent process), the
                 agent process, this process (the control plane), the kernel (interrupts and
                 kernel threads) and other work on the machine (what is left: other processes).
                 Times are wall-clock: on a machine shared with other work they grow with it.

Baselines from the same run, on the same machine:
  raw runc       as many containers, one at a time and all at once, each with the runtime's
                 own pieces and nothing else: its own network namespace, a host-image root
                 (hostImagePlan, prepareRoot), containerOciSpec, then conmon + runc create and
                 runc start (RuncContainers), timed from \`ip netns add\` until \`runc start\`
                 returns. No sandbox, veth, sidecar, control plane or status. The machine's
                 busy CPU seconds during the at-once batch are the CPU baseline.
  node:http      a bare \`node -e "require('http').createServer(…).listen(0)"\` (the same node
                 binary, with the V8 flags the sidecar runs with: SIDECAR_NODE_FLAGS), its VmRSS
                 once it listens.
  idle agent     the same agent process with no pods, over --idle-agent-seconds, before any pod.

Options:
  --sequential N          pods started one at a time (default 20)
  --burst N               replicas of the at-once Deployment (default 50)
  --idle-pods N           pods for the agent CPU figure (default 200; 0 skips it)
  --cpu-seconds S         length of the agent CPU window (default 30)
  --idle-agent-seconds S  length of the idle agent's window (default 10)
  --json FILE             also write the figures as JSON to FILE
  -h, --help              this text`;

/** Issue 21's goals. */
const GOAL_ONE_READY_P99_MS = 1000;
const GOAL_BURST_ALL_READY_MS = 10_000;
const GOAL_SIDECAR_RSS_RATIO = 1.3;
/** Nodes of the bench site: the idle pods need more than kubelet's 110 pods per node. */
const NODES = 2;
const SETTLE_MS = 5000;

interface Options {
  readonly sequential: number;
  readonly burst: number;
  readonly idlePods: number;
  readonly cpuSeconds: number;
  readonly idleAgentSeconds: number;
  readonly json?: string;
}

function parseOptions(args: string[]): Options | undefined {
  const { values } = parseArgs({
    args,
    options: {
      sequential: { type: 'string', default: '20' },
      burst: { type: 'string', default: '50' },
      'idle-pods': { type: 'string', default: '200' },
      'cpu-seconds': { type: 'string', default: '30' },
      'idle-agent-seconds': { type: 'string', default: '10' },
      json: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return undefined;
  const whole = (flag: string, text: string, min: number): number => {
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${flag} takes a whole number of at least ${min}, not "${text}"`);
    return n;
  };
  const burst = whole('burst', values.burst, 1);
  const idlePods = whole('idle-pods', values['idle-pods'], 0);
  if (idlePods > 0 && idlePods < burst) throw new Error(`--idle-pods (${idlePods}) scales the --burst Deployment (${burst}) up: give at least as many, or 0`);
  if (idlePods > NODES * 110) throw new Error(`--idle-pods: at most ${NODES * 110} (${NODES} nodes of 110 pods)`);
  return {
    sequential: whole('sequential', values.sequential, 1),
    burst,
    idlePods,
    cpuSeconds: whole('cpu-seconds', values['cpu-seconds'], 1),
    idleAgentSeconds: whole('idle-agent-seconds', values['idle-agent-seconds'], 1),
    ...(values.json === undefined ? {} : { json: values.json }),
  };
}

const fmtTime = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** VmRSS of a bare node:http server in its own process, once it listens (and a moment after, as the sidecars are measured long after their start). */
async function bareNodeHttpRss(): Promise<number> {
  const script = "require('http').createServer((q,s)=>s.end('ok')).listen(0,'127.0.0.1',()=>console.log('listening'))";
  // The sidecar's V8 flags too, so the ratio is what the sidecar's code adds to node's floor (they change little here: this server runs nothing hot).
  const child = spawn(process.execPath, [...SIDECAR_NODE_FLAGS, '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('listening') ? resolve() : undefined));
      child.once('exit', (code) => reject(new Error(`bare node:http exited (${code})`)));
    });
    await sleep(1000);
    const rss = processRssBytes(child.pid ?? 0);
    if (rss === undefined) throw new Error('cannot read the bare server\'s VmRSS');
    return rss;
  } finally {
    child.kill('SIGKILL');
  }
}

/** VmRSS of the processes of the pod's (latest) sidecar container, from its memory cgroup. */
function sidecarRss(netns: string, uid: string): number | undefined {
  const pod = `/sys/fs/cgroup/memory/edgeplane/${netns}/${uid}`;
  if (!existsSync(pod)) return undefined;
  const instances = readdirSync(pod).filter((n) => n.startsWith(`${SIDECAR_CONTAINER_NAME}-`)).sort((a, b) => Number(a.slice(a.lastIndexOf('-') + 1)) - Number(b.slice(b.lastIndexOf('-') + 1)));
  const latest = instances.at(-1);
  if (latest === undefined) return undefined;
  const pids = readFileSync(join(pod, latest, 'cgroup.procs'), 'utf8').split('\n').filter((l) => l !== '').map(Number);
  const sizes = pids.map(processRssBytes).filter((r): r is number => r !== undefined);
  return sizes.length === 0 ? undefined : sizes.reduce((a, b) => a + b, 0);
}

function rssSummary(env: RuncBenchSite, pods: readonly PodTimes[]): { median: number; p99: number; max: number; count: number; samples: number[] } {
  const samples = pods.map((p) => sidecarRss(env.netns, p.uid)).filter((r): r is number => r !== undefined);
  if (samples.length === 0) throw new Error('no sidecar process found in the pods\' cgroups');
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) as number, count: samples.length, samples };
}

/** The agent process's CPU over `seconds`, as a share of one core, and its RSS at the end. */
async function agentCpu(pid: number, seconds: number): Promise<{ share: number; rss: number; controlPlaneShare: number }> {
  const before = processCpuSeconds(pid);
  const ownBefore = process.cpuUsage();
  const t0 = nowMs();
  await sleep(seconds * 1000);
  const wall = (nowMs() - t0) / 1000;
  const used = processCpuSeconds(pid) - before;
  const own = process.cpuUsage(ownBefore);
  return { share: used / wall, rss: processRssBytes(pid) ?? Number.NaN, controlPlaneShare: (own.user + own.system) / 1e6 / wall };
}

/**
 * CPU seconds used so far: the machine's; the site's containers' (sidecars, infra, sleep); the
 * agent's cgroup (the agent and what it starts outside containers: conmon, runc, ip); the agent
 * process alone; this process (the control plane).
 */
interface CpuReading {
  readonly machine: number;
  readonly kernel: number;
  readonly containers: number;
  readonly agentTree: number;
  readonly agent: number;
  readonly controlPlane: number;
}

function readCpu(env: RuncBenchSite): CpuReading {
  const own = process.cpuUsage();
  const agent = processCpuSeconds(env.agentPid);
  const machine = machineBusySeconds();
  return {
    machine: machine.busy,
    kernel: machine.kernel,
    containers: cgroupCpuSeconds(`/edgeplane/${env.netns}`),
    agentTree: env.agentCgroup === undefined ? agent : cgroupCpuSeconds(env.agentCgroup),
    agent,
    controlPlane: (own.user + own.system) / 1e6,
  };
}

interface CpuSpent {
  readonly machine: number;
  readonly containers: number;
  readonly agent: number;
  /** conmon, runc, ip and the agent's other helpers (its cgroup less its own process). */
  readonly helpers: number;
  readonly controlPlane: number;
  /** Interrupts and kernel threads (network namespace clean-up runs there, among others). */
  readonly kernel: number;
  /** Every other process on the machine (other work sharing it). */
  readonly other: number;
}

function cpuBetween(a: CpuReading, b: CpuReading): CpuSpent {
  const machine = b.machine - a.machine;
  const containers = b.containers - a.containers;
  const agent = b.agent - a.agent;
  const helpers = Math.max(0, b.agentTree - a.agentTree - agent);
  const controlPlane = b.controlPlane - a.controlPlane;
  const kernel = b.kernel - a.kernel;
  return { machine, containers, agent, helpers, controlPlane, kernel, other: machine - containers - agent - helpers - controlPlane - kernel };
}

const fmtCpu = (cpu: CpuSpent, pods: number): string =>
  `${cpu.machine.toFixed(1)} CPU-s, ${(cpu.machine / pods).toFixed(2)} per pod: containers ${cpu.containers.toFixed(1)} (sidecars, infra, sleep), runc+conmon+ip ${cpu.helpers.toFixed(1)}, agent ${cpu.agent.toFixed(1)}, control plane ${cpu.controlPlane.toFixed(1)}, kernel ${cpu.kernel.toFixed(1)}; other work on the machine ${cpu.other.toFixed(1)}`;

const ready = (pods: PodTimes[], count: number, what: 'running' | 'ready'): PodTimes[] | undefined => (pods.length >= count && pods.every((p) => p[what] !== undefined) ? pods : undefined);

/**
 * `npm run bench -- runtime`: pod start on a runc site (one at a time, and many at once) next
 * to raw runc starts, the sidecar's RSS next to bare node:http, the agent's CPU with idle pods.
 */
export async function benchRuntime(args: string[]): Promise<void> {
  const options = parseOptions(args);
  if (options === undefined) return void console.log(HELP);
  const programs = findRuntimePrograms(); // fails here, naming what is missing (root, runc, conmon…)
  const rows: Row[] = [];
  const verdicts: string[] = [];
  const figures: Record<string, unknown> = { machine: { cpus: cpus().length, runc: programs.runc.version, node: process.version } };
  progress(`machine: ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')} (other work on the machine shares them); runc ${programs.runc.version}`);

  progress('baseline: bare node:http RSS');
  const bareRss = await bareNodeHttpRss();
  progress(`baseline: raw runc, ${options.sequential} containers one at a time`);
  const rawOne: RawStarts = await rawRuncStarts(options.sequential, 1);
  progress(`baseline: raw runc, ${options.burst} containers at once`);
  const rawBurst: RawStarts = await rawRuncStarts(options.burst, options.burst);

  const env = await startRuncBenchSite({ nodes: NODES, cpu: '8', memory: '16Gi' }, progress);
  let timeline: PodTimeline | undefined;
  try {
    timeline = await PodTimeline.open(env.podWatch);
    const watch = timeline;
    progress(`idle agent, no pods: CPU over ${options.idleAgentSeconds} s`);
    const idleAgent = await agentCpu(env.agentPid, options.idleAgentSeconds);

    // (a) one at a time
    const oneApps = ['one-warm-up', ...Array.from({ length: options.sequential }, (_, i) => `one-${i}`)];
    const oneSidecar: number[] = [];
    const oneRunning: number[] = [];
    const oneReady: number[] = [];
    for (const app of oneApps) {
      if (app !== 'one-warm-up' && oneReady.length % 5 === 0) progress(`one at a time: pod ${oneReady.length + 1} of ${options.sequential}`);
      const t0 = nowMs();
      await env.createDeployment(app, 1);
      const [pod] = await watch.until(`${app} Ready`, () => ready(watch.live(app), 1, 'ready'), 60_000);
      if (app === 'one-warm-up' || pod === undefined) continue;
      oneSidecar.push((pod.sidecarRunning ?? Number.NaN) - t0);
      oneRunning.push((pod.running ?? Number.NaN) - t0);
      oneReady.push((pod.ready ?? Number.NaN) - t0);
    }
    const onePods = oneApps.flatMap((app) => watch.live(app));
    const oneRss = rssSummary(env, onePods);
    progress(`sidecar RSS of ${oneRss.count} pods: median ${fmtMiB(oneRss.median)}; deleting the one-at-a-time Deployments`);
    for (const app of oneApps) await env.deleteDeployment(app);
    await watch.until('the one-at-a-time pods gone', () => (oneApps.every((app) => watch.remaining(app).length === 0) ? true : undefined), 120_000, () => `${oneApps.reduce((n, app) => n + watch.remaining(app).length, 0)} left`);

    // (b) many at once
    progress(`${options.burst} at once: one Deployment of ${options.burst} replicas`);
    const cpuBurst = readCpu(env);
    const tBurst = nowMs();
    await env.createDeployment('burst', options.burst);
    const allRunning = await watch.until(`${options.burst} pods Running`, () => ready(watch.live('burst'), options.burst, 'running'), 180_000, () => `${watch.live('burst').filter((p) => p.running !== undefined).length} Running`);
    const allRunningMs = Math.max(...allRunning.map((p) => (p.running ?? Number.NaN) - tBurst));
    const allReady = await watch.until(`${options.burst} pods Ready`, () => ready(watch.live('burst'), options.burst, 'ready'), 180_000, () => `${watch.live('burst').filter((p) => p.ready !== undefined).length} Ready`);
    const burstRunning = allReady.map((p) => (p.running ?? Number.NaN) - tBurst);
    const burstReady = allReady.map((p) => (p.ready ?? Number.NaN) - tBurst);
    const allReadyMs = Math.max(...burstReady);
    const burstCpu = cpuBetween(cpuBurst, readCpu(env));
    progress(`${options.burst} at once: all Running in ${fmtTime(allRunningMs)}, all Ready in ${fmtTime(allReadyMs)}`);

    // (c) idle pods: the agent's CPU
    let idle: { pods: number; readyMs: number; startCpu: CpuSpent; cpu: Awaited<ReturnType<typeof agentCpu>>; rss: ReturnType<typeof rssSummary> } | undefined;
    if (options.idlePods > 0) {
      progress(`${options.idlePods} idle pods: scaling the Deployment to ${options.idlePods}`);
      const cpuScale = readCpu(env);
      const tScale = nowMs();
      await env.scaleDeployment('burst', options.idlePods);
      const describe = (): string => `${watch.live('burst').filter((p) => p.ready !== undefined).length} of ${options.idlePods} Ready`;
      let reported = 0;
      const all = await watch.until(
        `${options.idlePods} pods Ready`,
        () => {
          const n = watch.live('burst').filter((p) => p.ready !== undefined).length;
          if (n >= reported + 50) progress(`${(reported = n - (n % 50))} of ${options.idlePods} Ready`);
          return ready(watch.live('burst'), options.idlePods, 'ready');
        },
        300_000,
        describe,
      );
      const readyMs = Math.max(...all.map((p) => (p.ready ?? Number.NaN) - tScale));
      const startCpu = cpuBetween(cpuScale, readCpu(env));
      progress(`${options.idlePods} pods Ready (${fmtTime(readyMs)} after the scale); ${SETTLE_MS / 1000} s to settle, then the agent's CPU over ${options.cpuSeconds} s`);
      await sleep(SETTLE_MS);
      const cpu = await agentCpu(env.agentPid, options.cpuSeconds);
      idle = { pods: options.idlePods, readyMs, startCpu, cpu, rss: rssSummary(env, all) };
    }
    progress('deleting the Deployment; waiting until its pods are gone');
    await env.deleteDeployment('burst');
    await watch.until('the pods gone', () => (watch.remaining('burst').length === 0 ? true : undefined), 240_000, () => `${watch.remaining('burst').length} left`);

    // The report
    const one = { sidecar: latencySummary(oneSidecar), running: latencySummary(oneRunning), ready: latencySummary(oneReady) };
    const raw1 = latencySummary(rawOne.samples);
    const rawN = latencySummary(rawBurst.samples);
    const burstRun = latencySummary(burstRunning);
    const burstRdy = latencySummary(burstReady);
    const rawOneText = `raw runc, 1 at a time: p50 ${fmtTime(raw1.p50)}, p99 ${fmtTime(raw1.p99)}`;
    const rawBurstText = `raw runc, ${options.burst} at once: all started in ${fmtTime(rawBurst.wallMs)} (each p50 ${fmtTime(rawN.p50)}, p99 ${fmtTime(rawN.p99)})`;
    rows.push(
      { area: 'pod start', measure: `1 at a time: create → Running (${oneRunning.length} pods)`, value: `p50 ${fmtTime(one.running.p50)}, p99 ${fmtTime(one.running.p99)} (sidecar container running: p50 ${fmtTime(one.sidecar.p50)}, p99 ${fmtTime(one.sidecar.p99)})`, baseline: rawOneText, ratio: `${(one.running.p99 / raw1.p99).toFixed(1)}× (p99)` },
      { area: 'pod start', measure: `1 at a time: create → Ready, sidecar READY (${oneReady.length} pods)`, value: `p50 ${fmtTime(one.ready.p50)}, p99 ${fmtTime(one.ready.p99)}`, baseline: rawOneText, ratio: `${(one.ready.p99 / raw1.p99).toFixed(1)}× (p99)` },
      { area: 'pod start', measure: `${options.burst} at once: all Running`, value: `${fmtTime(allRunningMs)} (each p50 ${fmtTime(burstRun.p50)}, p99 ${fmtTime(burstRun.p99)})`, baseline: rawBurstText, ratio: `${(allRunningMs / rawBurst.wallMs).toFixed(1)}×` },
      { area: 'pod start', measure: `${options.burst} at once: all Ready, sidecars READY`, value: `${fmtTime(allReadyMs)} (each p50 ${fmtTime(burstRdy.p50)}, p99 ${fmtTime(burstRdy.p99)})`, baseline: rawBurstText, ratio: `${(allReadyMs / rawBurst.wallMs).toFixed(1)}×` },
      {
        area: 'pod start',
        measure: `${options.burst} at once: CPU until all Ready`,
        value: fmtCpu(burstCpu, options.burst),
        baseline: `raw runc, ${options.burst} at once: ${rawBurst.machineCpuSeconds.toFixed(1)} CPU-s, ${(rawBurst.machineCpuSeconds / options.burst).toFixed(2)} per container`,
        ratio: `${(burstCpu.machine / rawBurst.machineCpuSeconds).toFixed(1)}×`,
      },
      { area: 'sidecar', measure: `RSS per pod (${oneRss.count} pods started one at a time)`, value: `median ${fmtMiB(oneRss.median)}, max ${fmtMiB(oneRss.max)}`, baseline: `bare node:http ${fmtMiB(bareRss)}`, ratio: `${(oneRss.median / bareRss).toFixed(2)}× (median)` },
    );
    if (idle !== undefined) {
      rows.push(
        {
          area: 'pod start',
          measure: `scale ${options.burst} → ${idle.pods}: all Ready`,
          value: `${fmtTime(idle.readyMs)}, ${((idle.pods - options.burst) / (idle.readyMs / 1000)).toFixed(1)} pods/s; ${fmtCpu(idle.startCpu, idle.pods - options.burst)}`,
          baseline: rawBurstText,
          ratio: '—',
        },
        { area: 'sidecar', measure: `RSS per pod (${idle.rss.count} idle pods)`, value: `median ${fmtMiB(idle.rss.median)}, p99 ${fmtMiB(idle.rss.p99)}, max ${fmtMiB(idle.rss.max)}`, baseline: `bare node:http ${fmtMiB(bareRss)}`, ratio: `${(idle.rss.median / bareRss).toFixed(2)}× (median)` },
        {
          area: 'site agent',
          measure: `CPU with ${idle.pods} idle pods (${options.cpuSeconds} s)`,
          value: `${(idle.cpu.share * 100).toFixed(1)}% of one core (agent RSS ${fmtMiB(idle.cpu.rss)}; control plane ${(idle.cpu.controlPlaneShare * 100).toFixed(1)}%)`,
          baseline: `same agent, no pods (${options.idleAgentSeconds} s): ${(idleAgent.share * 100).toFixed(1)}%, RSS ${fmtMiB(idleAgent.rss)}`,
          ratio: idleAgent.share > 0 ? `${(idle.cpu.share / idleAgent.share).toFixed(1)}×` : '—',
        },
      );
    }
    const rssRatio = oneRss.median / bareRss;
    verdicts.push(
      `one pod Ready p99 ≤ ${fmtTime(GOAL_ONE_READY_P99_MS)}: ${one.ready.p99 <= GOAL_ONE_READY_P99_MS ? 'met' : 'MISSED'} (${fmtTime(one.ready.p99)})`,
      `${options.burst} at once all Ready ≤ ${fmtTime(GOAL_BURST_ALL_READY_MS)}: ${allReadyMs <= GOAL_BURST_ALL_READY_MS ? 'met' : 'MISSED'} (${fmtTime(allReadyMs)})`,
      `sidecar RSS ≤ ${GOAL_SIDECAR_RSS_RATIO}× bare node:http: ${rssRatio <= GOAL_SIDECAR_RSS_RATIO ? 'met' : 'MISSED'} (median ${fmtMiB(oneRss.median)} = ${rssRatio.toFixed(2)}× ${fmtMiB(bareRss)}${idle === undefined ? '' : `; idle pods ${(idle.rss.median / bareRss).toFixed(2)}×`})`,
    );
    Object.assign(figures, {
      oneAtATime: { pods: oneReady.length, sidecarRunningMs: { ...one.sidecar, samples: oneSidecar }, runningMs: { ...one.running, samples: oneRunning }, readyMs: { ...one.ready, samples: oneReady } },
      atOnce: { pods: options.burst, allRunningMs, allReadyMs, runningMs: burstRun, readyMs: burstRdy, cpuSeconds: burstCpu },
      rawRunc: { oneAtATime: { ...raw1, samples: rawOne.samples }, atOnce: { ...rawN, allStartedMs: rawBurst.wallMs, machineCpuSeconds: rawBurst.machineCpuSeconds } },
      sidecarRssBytes: { oneAtATime: { median: oneRss.median, max: oneRss.max, count: oneRss.count }, ...(idle === undefined ? {} : { idle: { median: idle.rss.median, p99: idle.rss.p99, max: idle.rss.max, count: idle.rss.count } }) },
      bareNodeHttpRssBytes: bareRss,
      agent: { idleNoPods: { cpuShare: idleAgent.share, rssBytes: idleAgent.rss, seconds: options.idleAgentSeconds }, ...(idle === undefined ? {} : { idlePods: { pods: idle.pods, cpuShare: idle.cpu.share, rssBytes: idle.cpu.rss, controlPlaneCpuShare: idle.cpu.controlPlaneShare, seconds: options.cpuSeconds, allReadyAfterScaleMs: idle.readyMs, scaleCpuSeconds: idle.startCpu } }) },
      goals: { oneReadyP99Ms: GOAL_ONE_READY_P99_MS, atOnceAllReadyMs: GOAL_BURST_ALL_READY_MS, sidecarRssRatio: GOAL_SIDECAR_RSS_RATIO },
    });
  } finally {
    timeline?.close();
    progress('cleaning up: stopping the agent, removing the site network');
    await env.close();
  }
  printTable('Real pods on a runc site (times from the create request to the pod watch\'s event)', rows);
  console.log('');
  for (const verdict of verdicts) console.log(`goal ${verdict}`);
  if (options.json !== undefined) {
    writeFileSync(options.json, JSON.stringify(figures, null, 2) + '\n');
    progress(`figures written to ${options.json}`);
  }
}
