import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RECORDING_SERVER } from '../test/e2e/support/network-probes.js';
import { serviceYaml } from '../test/e2e/support/service-workloads.js';
import { startSharedRuncSite, type SharedCluster, type SharedPod, type SharedRuncSite } from '../test/e2e/support/shared-runc-site.js';
import { waitFor } from '../test/e2e/support/wait-for.js';
import type { AreaReport, Scale } from './area.js';
import { dataPlaneCells, POD_PIDS_LIMIT, workloadYaml, type DataPlaneCell, type DataPlaneWorld } from './data-plane-cells.js';

const SITE = 're-shared';
/** How a workload names a regional edge (PLATFORM-FACTS: regional edges are `svc-io-system/<name>`). */
const PLACEMENT = `svc-io-system/${SITE}`;
const IDLE = 'setInterval(()=>{},1e9)';

/** A Deployment of one pod on the site running node `script` on the host image (readiness on 8080 when `serves`). */
function deployment(name: string, script: string, serves: boolean): string {
  const readiness = serves ? 'readinessProbe: {httpGet: {path: /, port: 8080}, periodSeconds: 1}\n' : '';
  return workloadYaml(name, SITE, { command: JSON.stringify(['node', '-e', script]), container: readiness });
}

/** Deploys what the cells aim at and learns its addresses: a `web` Deployment and Service in each tenant's cluster, vk2's `attacker`. */
async function prepare(env: SharedRuncSite, progress: (line: string) => void): Promise<DataPlaneWorld> {
  for (const cluster of ['vk1', 'vk2'] as const) {
    await env.ok(cluster, ['apply', '-f', '-'], deployment('web', RECORDING_SERVER, true));
    await env.ok(cluster, ['apply', '-f', '-'], serviceYaml('web', { app: 'web', site: SITE, ports: [{ name: 'http', port: 80, targetPort: 8080 }], annotations: { 'svc.io/sites': PLACEMENT } }));
  }
  await env.ok('vk2', ['apply', '-f', '-'], deployment('attacker', IDLE, false));
  const ready = (cluster: SharedCluster, app: string): Promise<SharedPod> =>
    waitFor(`${cluster}'s ${app} ready`, async () => (await env.readyPods(cluster, app))[0], { timeoutMs: 120_000 });
  const [victimWeb, ownWeb, attacker] = [await ready('vk1', 'web'), await ready('vk2', 'web'), await ready('vk2', 'attacker')];
  progress('both tenants\' pods ready on the shared regional edge');
  const clusterIP = async (cluster: SharedCluster): Promise<string> => (await env.ok(cluster, ['get', 'service', 'web', '-o', 'jsonpath={.spec.clusterIP}'])).trim();
  const nameserverOf = (pod: SharedPod): string =>
    /nameserver (\S+)/.exec(readFileSync(join(env.home, 'runc', SITE, 'pods', pod.metadata.uid ?? '', 'etc-resolv.conf'), 'utf8'))?.[1] ?? '';
  const gateway = (await env.ok('vk2', ['get', 'pod', attacker.metadata.name ?? '', '-o', 'jsonpath={.status.hostIP}'])).trim();
  return {
    env,
    victim: { podIP: victimWeb.status?.podIP ?? '', clusterIP: await clusterIP('vk1'), nameserver: nameserverOf(victimWeb) },
    own: { peerIP: ownWeb.status?.podIP ?? '', clusterIP: await clusterIP('vk2'), nameserver: nameserverOf(attacker) },
    gateway,
  };
}

async function judge(cell: DataPlaneCell, world: DataPlaneWorld): Promise<string | undefined> {
  try {
    return await cell.run(world);
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * The data plane's half of the isolation area: a runc regional edge (its agent a process)
 * shared by two tenants' virtual clusters, and every attack of issue 30 re-run from a pod of
 * the second tenant with plain kubectl — admission refusals, escapes tried inside the pod, the
 * other tenant's pod IP, ClusterIP and name server, the relay's platform paths — next to the
 * controls that must keep working (its own pods, Service and names). `ok` when every attack
 * is stopped and every control works.
 */
export async function dataPlaneMatrix(scale: Scale, progress: (line: string) => void): Promise<AreaReport> {
  const cells = dataPlaneCells().filter((cell) => scale === 'long' || cell.short);
  const env = await startSharedRuncSite(SITE, { regionalEdge: true, agentFlags: ['--pod-pids-limit', String(POD_PIDS_LIMIT)] });
  try {
    const world = await prepare(env, progress);
    const rows: string[] = [];
    const failures: string[] = [];
    for (const cell of cells) {
      const problem = await judge(cell, world);
      if (problem !== undefined) failures.push(`data plane ${cell.id}: ${cell.attack}: ${problem}`);
      const verdict = problem === undefined ? (cell.kind === 'attack' ? 'stopped' : 'works') : `**${cell.kind === 'attack' ? 'not stopped' : 'broken'}**`;
      rows.push(`| ${cell.id} | ${cell.attack} | ${cell.layer} | ${verdict} |`);
      progress(`${cell.id}: ${verdict}`);
    }
    const attacks = cells.filter((c) => c.kind === 'attack').length;
    const markdown = [
      '',
      `Data plane: a runc regional edge shared by two tenants, attacks from a pod of the second with plain kubectl (${attacks} attacks, ${cells.length - attacks} controls):`,
      '',
      '| cell | attack | what stops it | result |',
      '|---|---|---|---|',
      ...rows,
    ];
    return { ok: failures.length === 0, markdown, failures };
  } finally {
    await env.close();
  }
}
