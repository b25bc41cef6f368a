/**
 * The autonomy area (issue 31): a real `edgeplane server` (SQLite) and a runc customer edge
 * whose agent is a process of its own in a network namespace, its link to the server a veth
 * pair that is cut with a silent drop. A client pod on the site calls an HTTP_PROXY and a
 * TCP_PROXY Service by name and by ClusterIP every 100 ms while faults come in a row: agent
 * SIGKILL, control-plane SIGKILLs, link cuts, an agent restart while the control plane is
 * down, a machine-like restart of the agent. For each: failed calls, seconds until the pods
 * are Ready again in the API after the restore, containers restarted, pods moved.
 */
import { tmpdir } from 'node:os';
import type { AreaReport, ReliabilityArea, Scale } from './area.js';
import { backendYaml, CallLog, clientYaml, servicesYaml } from './autonomy/client-pod.js';
import { EdgeSite, isReady, type Pod } from './autonomy/edge-site.js';
import { missedGoals, renderRows, type FaultRow } from './autonomy/fault-row.js';
import { PLANS, type Fault, type AutonomyPlan } from './autonomy/faults.js';
import { allReady, compareCensus, ReadinessWatch, takeCensus, type Census } from './autonomy/observations.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(250);
  }
}

const readyOf = async (site: EdgeSite, app: string, count: number): Promise<Pod[] | undefined> => {
  const pods = (await site.pods())?.filter((p) => p.metadata.labels?.['app'] === app && p.metadata.deletionTimestamp === undefined && isReady(p));
  return pods !== undefined && pods.length === count ? pods : undefined;
};

/** The backends, both Services and the client; resolves once every target answers. */
async function deploy(site: EdgeSite, progress: (line: string) => void): Promise<CallLog> {
  await site.kubectl(['apply', '-f', '-'], backendYaml(site.site));
  await site.kubectl(['apply', '-f', '-'], servicesYaml(site.site));
  await until('2 backend pods Ready', 180_000, () => readyOf(site, 'backend', 2));
  const clusterIP = async (name: string): Promise<string> => (await site.kubectl(['get', 'service', name, '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  await site.kubectl(['apply', '-f', '-'], clientYaml(site.site, { web: await clusterIP('web'), echo: await clusterIP('echo') }));
  const [client] = await until('the client pod Ready', 120_000, () => readyOf(site, 'client', 1));
  const calls = new CallLog(site.podDir(client?.metadata.uid ?? ''));
  await until('the client\'s calls to every target succeeding for 3 s', 90_000, () => Promise.resolve(calls.exists() && calls.healthy(3) ? true : undefined));
  progress('backends, Services and the client pod running; every call succeeding');
  return calls;
}

/**
 * Before each fault: every pod Ready and every call succeeding. When the previous fault left
 * the site otherwise (which is what it is measured for), the agent is restarted (SIGKILL and
 * start: its pods are adopted) so each fault starts from a serving site; the note says so.
 */
async function settle(site: EdgeSite, calls: CallLog, waitMs: number): Promise<string | undefined> {
  const healthy = async (): Promise<true | undefined> => (site.agent.running && allReady((await site.pods()) ?? []) && calls.healthy(2) ? true : undefined);
  const state = async (): Promise<string> => {
    const pods = await site.pods();
    const recent = calls.window(Date.now() - 3000, Date.now());
    const errors = [...new Set(recent.failed.map((f) => `${f.target}: ${f.error}`))].join(', ');
    return `agent ${site.agent.running ? 'running' : 'not running'}, pods ${pods === undefined ? 'not listed' : allReady(pods) ? 'all Ready' : 'not all Ready'}, `
      + `last 3 s: ${recent.succeeded} calls succeeded, ${recent.failed.length} failed${errors === '' ? '' : ` (${errors})`}`;
  };
  try {
    await until('a serving site', waitMs, healthy);
    return undefined;
  } catch {
    const before = await state();
    const started = Date.now();
    if (site.agent.running) await site.agent.stop('SIGKILL');
    await site.agent.start(true);
    try {
      await until('a serving site after an agent restart', 90_000, healthy);
      return `before it the site was not settled (${before}); an agent restart settled it in ${((Date.now() - started) / 1000).toFixed(0)} s`;
    } catch {
      return `before it the site was not settled (${before}), nor 90 s after an agent restart (${await state()}): its figures start from that state`;
    }
  }
}

interface Run {
  readonly site: EdgeSite;
  readonly calls: CallLog;
  readonly watch: ReadinessWatch;
  readonly plan: AutonomyPlan;
  readonly progress: (line: string) => void;
}

async function runFault({ site, calls, watch, plan, progress }: Run, fault: Fault): Promise<FaultRow> {
  const settled = await settle(site, calls, plan.settleMs);
  const before: Census = await takeCensus(site, undefined);
  const startedAt = Date.now();
  progress(`${fault.name}: starting`);
  let restoredAt = startedAt;
  const notes = settled === undefined ? [] : [settled];
  let error: string | undefined;
  try {
    const outcome = await fault.run(site, progress);
    restoredAt = outcome.restoredAt;
    notes.push(...outcome.notes);
  } catch (caught) {
    error = caught instanceof Error ? caught.message.split('\n')[0] : String(caught);
    restoredAt = Date.now();
  }
  await sleep(Math.max(0, restoredAt + plan.observeMs - Date.now()));
  const endedAt = Date.now();
  let change;
  try {
    change = compareCensus(before, await takeCensus(site, undefined));
  } catch {
    change = undefined;
  }
  const row: FaultRow = {
    name: fault.name,
    outage: fault.outage,
    startedAt,
    restoredAt,
    stopsDataPlane: fault.stopsDataPlane === true,
    calls: calls.window(startedAt, endedAt),
    readyAfter: watch.readyAfter(restoredAt, endedAt),
    observedSeconds: (endedAt - restoredAt) / 1000,
    notReadySeconds: watch.notReadySeconds(startedAt, endedAt),
    change,
    notes,
    ...(error === undefined ? {} : { error }),
  };
  progress(`${fault.name}: ${row.calls.failed.length} of ${row.calls.failed.length + row.calls.succeeded} calls failed, Ready again after ${row.readyAfter?.toFixed(1) ?? 'never'} s`);
  return row;
}

export const autonomyArea: ReliabilityArea = {
  name: 'autonomy',
  description: 'a runc site calling its Services every 100 ms through agent kills, control-plane kills and link cuts: failed calls, seconds to Ready, pods restarted or moved',
  async run(scale: Scale, progress: (line: string) => void): Promise<AreaReport> {
    const plan = PLANS[scale];
    const started = Date.now();
    const grace = plan.graceSeconds === undefined ? {} : { graceSeconds: plan.graceSeconds };
    const site = await EdgeSite.start({ ...grace, heartbeatSeconds: plan.heartbeatSeconds }, progress);
    const rows: FaultRow[] = [];
    const failures: string[] = [];
    let watch: ReadinessWatch | undefined;
    // Stopped by hand (a long run is half an hour): the site, its link and its pods go first.
    const interrupted = (signal: NodeJS.Signals): void => {
      void site.close().finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
    try {
      const calls = await deploy(site, progress);
      watch = new ReadinessWatch(site);
      const run: Run = { site, calls, watch, plan, progress };
      for (const fault of plan.faults) rows.push(await runFault(run, fault));
      failures.push(...rows.flatMap(missedGoals));
    } catch (error) {
      failures.push(`the run stopped: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
      await watch?.stop();
      const kept = await site.close(failures.length === 0 ? undefined : tmpdir());
      if (kept !== undefined) progress(`the agent's and the server's logs are kept in ${kept}`);
    }
    await sleep(500); // processes ended by pid leave /proc once reaped
    const leftovers = site.leftovers();
    if (leftovers.length > 0) failures.push(`left on the machine: ${leftovers.join(', ')}`);
    const lease = plan.graceSeconds === undefined
      ? 'the server\'s default lease (40 s) and the agent\'s default heartbeat (10 s)'
      : `lease ${plan.graceSeconds} s (--node-monitor-grace-period), heartbeats every ${plan.heartbeatSeconds} s`;
    const markdown = [
      ...renderRows(rows),
      '',
      `Site: one runc customer edge (2 backend pods, 1 client pod, each with its sidecar), its agent a process in a network namespace of its own joined by a veth pair; a link cut drops every packet there (nftables, policy drop). `
        + `Scale: ${scale}. Server: \`edgeplane server\` on SQLite, SIGKILLed and started again on the same home and address; ${lease}; each fault watched ${plan.observeMs / 1000} s after the restore (${((Date.now() - started) / 1000).toFixed(0)} s in all).`,
      'Calls: HTTP GETs through the HTTP_PROXY Service `web` and TCP exchanges through the TCP_PROXY Service `echo`, each by name (the site\'s DNS) and by ClusterIP, a call per target every 100 ms, a new connection each, failing on an error or no answer within 2 s; '
        + 'counted from the client pod\'s own log on the site\'s disk. Ready: every pod Ready in the pods list `kubectl get pods` reads, sampled every 250 ms; restarts: restartCount increases and runc containers whose pid changed; moved: pods whose uid changed.',
    ];
    return { ok: failures.length === 0, markdown, failures };
  },
};
