/**
 * The crashes area: a real `edgeplane server --local-sites` under a mixed load through both
 * APIs, SIGKILLed at random moments (and, on etcd, etcd itself), restarted on the same home
 * and store each time. Afterwards every acknowledged write must be found, the first list after
 * each restart must not be at a revision below one seen before the crash, and every
 * Deployment must converge on the simulated sites.
 */
import type { AreaReport, ReliabilityArea, Scale } from './area.js';
import { LOCAL_REGIONAL_EDGES } from './crashes/deployment-convergence.js';
import { CONFIGMAPS, startMixedLoad, type MixedLoad } from './crashes/mixed-load.js';
import { VK8S, type PlatformClient } from './crashes/platform-client.js';
import { PlatformUnderTest, type Backend } from './crashes/platform-under-test.js';
import { readBack, waitForConvergence, type Convergence, type ReadBack } from './crashes/read-back.js';
import { WriteLedger } from './crashes/write-ledger.js';
import { seededRandom } from '../src/store/testing/watch-helpers.js';

type Crash = 'server' | 'etcd';

/** `server --local-sites` runs three: two regional edges and a customer edge. */
const LOCAL_SITES = 3;

interface Plan {
  readonly serverKills: number;
  readonly etcdKills: number;
  /** Acknowledged writes to wait for after each (re)start before the next crash may come. */
  readonly acksBetween: number;
  /** After those, the crash comes at a random moment within this many milliseconds. */
  readonly jitterMs: number;
  readonly workers: number;
  readonly maxDeployments: number;
  readonly convergeTimeoutMs: number;
}

const PLANS: Record<Scale, Record<Backend, Plan>> = {
  short: {
    sqlite: { serverKills: 2, etcdKills: 0, acksBetween: 10, jitterMs: 800, workers: 3, maxDeployments: 2, convergeTimeoutMs: 40_000 },
    etcd: { serverKills: 1, etcdKills: 1, acksBetween: 10, jitterMs: 800, workers: 3, maxDeployments: 2, convergeTimeoutMs: 40_000 },
  },
  long: {
    sqlite: { serverKills: 20, etcdKills: 0, acksBetween: 30, jitterMs: 4000, workers: 4, maxDeployments: 6, convergeTimeoutMs: 120_000 },
    etcd: { serverKills: 20, etcdKills: 5, acksBetween: 30, jitterMs: 4000, workers: 4, maxDeployments: 6, convergeTimeoutMs: 120_000 },
  },
};

/** Seeds of the crash schedule and moments (and, plus one, of the load), per backend. */
const SEEDS: Record<Backend, number> = { sqlite: 2001, etcd: 2002 };

interface RevisionCheck {
  readonly crash: string;
  readonly before: number;
  readonly after: number;
}

interface BackendRun {
  readonly backend: Backend;
  readonly plan: Plan;
  readonly writes: ReadBack;
  readonly revisions: readonly RevisionCheck[];
  readonly convergence: Convergence;
  readonly load: Pick<MixedLoad, 'refusals' | 'unavailable'>;
  readonly unknownWrites: number;
  readonly seconds: number;
}

/** The crashes in a random order (etcd's among the server's). */
function schedule(plan: Plan, random: () => number): Crash[] {
  const crashes: Crash[] = [...Array<Crash>(plan.serverKills).fill('server'), ...Array<Crash>(plan.etcdKills).fill('etcd')];
  for (let i = crashes.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [crashes[i], crashes[j]] = [crashes[j] as Crash, crashes[i] as Crash];
  }
  return crashes;
}

async function waitForAcks(load: MixedLoad, count: number, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (load.acknowledged() < count) {
    if (Date.now() > deadline) throw new Error(`no ${count}th acknowledged write within 30 s ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * On its first start the server makes the starter cluster after it starts serving: waits
 * until that cluster lists a Ready node of every local site.
 */
async function waitForStarterCluster(client: PlatformClient): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await client.read(`${VK8S}/api/v1/nodes`);
    const nodes = answer.status === 200 ? answer.json<{ items: Array<{ status?: { conditions?: Array<{ type: string; status: string }> } }> }>().items : [];
    const ready = nodes.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
    if (ready.length === LOCAL_SITES) return;
    if (Date.now() > deadline) throw new Error(`the starter cluster did not list ${LOCAL_SITES} Ready nodes within 30 s (HTTP ${answer.status}, ${ready.length} ready)`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The resourceVersion of the first vK8s list the server answers. */
async function listRevision(client: PlatformClient): Promise<number> {
  const answer = await client.read(CONFIGMAPS);
  if (answer.status !== 200) throw new Error(`listing ConfigMaps: HTTP ${answer.status} ${answer.body.slice(0, 200)}`);
  return Number(answer.json<{ metadata: { resourceVersion?: string } }>().metadata.resourceVersion);
}

async function runBackend(backend: Backend, plan: Plan, progress: (line: string) => void): Promise<BackendRun> {
  const started = performance.now();
  const random = seededRandom(SEEDS[backend]);
  const platform = await PlatformUnderTest.start(backend);
  try {
    const client = platform.client();
    await waitForStarterCluster(client);
    const ledger = new WriteLedger();
    let maxSeen = 0;
    const observe = (revision: number): void => void (maxSeen = Math.max(maxSeen, revision));
    const revisions: RevisionCheck[] = [];
    // Its own sequence, so the crash schedule and moments do not depend on how many writes ran.
    const loadRandom = seededRandom(SEEDS[backend] + 1);
    const load = startMixedLoad({ client, ledger, observeRevision: observe, random: loadRandom, workers: plan.workers, maxDeployments: plan.maxDeployments });
    try {
      const crashes = schedule(plan, random);
      for (const [index, crash] of crashes.entries()) {
        await waitForAcks(load, load.acknowledged() + plan.acksBetween, index === 0 ? 'after the first start' : `after crash ${index}`);
        await new Promise((resolve) => setTimeout(resolve, Math.floor(random() * plan.jitterMs)));
        if (crash === 'server') await platform.killServer();
        else await platform.killEtcd();
        // Nothing commits once the process is gone: this is the most the clients can have seen.
        const before = maxSeen;
        if (crash === 'server') await platform.startServer();
        else await platform.startEtcd();
        const after = await listRevision(client);
        observe(after);
        revisions.push({ crash: `${crash} kill ${index + 1}`, before, after });
        progress(`${backend}: ${crash} kill ${index + 1}/${crashes.length}: ${load.acknowledged()} writes acknowledged so far; list at ${after} after ${before}`);
      }
      await waitForAcks(load, load.acknowledged() + plan.acksBetween, 'after the last crash');
    } finally {
      await load.stop();
    }
    const loadStopped = Date.now();
    const writes = await readBack(client, ledger);
    progress(`${backend}: ${writes.found}/${writes.acknowledged} acknowledged writes found; waiting for the Deployments to converge`);
    const convergence = await waitForConvergence(client, LOCAL_REGIONAL_EDGES, plan.convergeTimeoutMs, loadStopped);
    return { backend, plan, writes, revisions, convergence, load, unknownWrites: ledger.tally().unknown, seconds: (performance.now() - started) / 1000 };
  } finally {
    await platform.close();
  }
}

const kills = (plan: Plan): string => (plan.etcdKills === 0 ? `${plan.serverKills} server` : `${plan.serverKills} server + ${plan.etcdKills} etcd`);

function judge(run: BackendRun): string[] {
  const failures = run.writes.lost.map((line) => `${run.backend}: lost ${line}`);
  for (const check of run.revisions) {
    if (check.after < check.before) failures.push(`${run.backend}: after ${check.crash} the first list was at ${check.after}, below ${check.before} seen before it`);
  }
  if (run.convergence.deployments === 0) failures.push(`${run.backend}: no Deployment was created, so convergence was not tried`);
  failures.push(...run.convergence.behind.map((line) => `${run.backend}: not converged after ${run.convergence.seconds.toFixed(0)} s: ${line}`));
  failures.push(...run.load.refusals.slice(0, 10).map((line) => `${run.backend}: a valid write was refused: ${line}`));
  return failures;
}

function render(runs: readonly BackendRun[]): string[] {
  const lines = [
    '| backend | kills | writes acknowledged | found | lost | RV regressions | Deployments converged |',
    '|---|---|---:|---:|---:|---:|---|',
  ];
  for (const run of runs) {
    const regressions = run.revisions.filter((c) => c.after < c.before).length;
    const { deployments, converged, seconds } = run.convergence;
    lines.push(
      `| ${run.backend} | ${kills(run.plan)} | ${run.writes.acknowledged} | ${run.writes.found} | ${run.writes.lost.length} | ${regressions} of ${run.revisions.length} | ${converged}/${deployments} (${seconds.toFixed(0)} s after the load stopped) |`,
    );
  }
  lines.push('');
  for (const run of runs) {
    const unavailable = [...run.load.unavailable].map(([status, count]) => `${count} ${status === 'no answer' ? 'unanswered' : `HTTP ${status}`}`).join(', ');
    lines.push(
      `- ${run.backend} (${run.seconds.toFixed(0)} s, ${run.plan.workers} writers, seed ${SEEDS[run.backend]}): ${run.unknownWrites} writes of unknown outcome (${unavailable || 'none'}), ${run.load.refusals.length} refused.`,
    );
  }
  lines.push(
    '',
    'Load: policer creates and replaces (configuration API), ConfigMap creates and updates, Deployment creates and `/scale` changes (vK8s), through the tenant admin\'s API token, from concurrent writers that run on through the crashes. '
      + 'A write is found when the object holds its content or that of a later write that was not refused, at a revision not below the acknowledged one. '
      + `An RV regression is a first list after a restart at a resourceVersion below the largest one the clients saw before the crash. Deployments converge when every site (${LOCAL_REGIONAL_EDGES.join(', ')}) reports spec.replicas pods updated, ready and available.`,
  );
  return lines;
}

export const crashes: ReliabilityArea = {
  name: 'crashes',
  description: 'SIGKILLs of the server (and of etcd) under a mixed API load: acknowledged writes lost, resourceVersions going backwards, Deployments converging',
  async run(scale: Scale, progress: (line: string) => void): Promise<AreaReport> {
    const runs: BackendRun[] = [];
    const failures: string[] = [];
    for (const backend of ['sqlite', 'etcd'] as const) {
      try {
        const run = await runBackend(backend, PLANS[scale][backend], progress);
        runs.push(run);
        failures.push(...judge(run));
      } catch (error) {
        failures.push(`${backend}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    return { ok: failures.length === 0, markdown: render(runs), failures };
  },
};
