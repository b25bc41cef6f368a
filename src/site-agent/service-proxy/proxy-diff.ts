import { serverKeywords, sourcesFile, type HaproxyConfigPaths } from './haproxy-config.js';
import type { PlannedBackend, ProxyPlan } from './proxy-plan.js';

/**
 * What it takes to go from one proxy plan to the next (pure): a reload when anything but
 * servers and cluster sources changed (a frontend, a bind, a route, a backend's mode or
 * options), else HAProxy 2.6 runtime API commands, which keep every connection:
 * - a new endpoint: `add server <backend>/<ip:port> <keywords>` (not for HTTP/2 backends: see
 *   {@link http2Additions}; dynamic servers: 2.6 needs a
 *   dynamic balancing algorithm, roundrobin is one; no `default-server` is inherited, so the
 *   keywords are the config line's), then `enable server` when it is ready;
 * - readiness: `enable server` / `disable server`;
 * - a gone endpoint: `disable server`, then `del server` (refused by HAProxy while the server
 *   still has connections: then the caller reloads, which drops it without cutting them);
 * - a cluster's pods: `add acl <file> <ip>` / `del acl <file> <ip>` on its source list.
 * Servers are named by address, so `set server … addr` is never needed. The new config file
 * is written either way, so a later reload or restart starts from the same state.
 */
export interface ProxyChange {
  /** Why a reload is needed (empty: runtime commands suffice). */
  readonly reloadReasons: readonly string[];
  /** Runtime API commands, in order (empty when reloading). */
  readonly commands: readonly string[];
}

const shapeOf = (plan: ProxyPlan): Map<string, string> =>
  new Map([
    ...plan.frontends.map((f) => [f.name, JSON.stringify(f)] as const),
    ...plan.backends.map(({ servers: _servers, ...rest }) => [rest.name, JSON.stringify(rest)] as const),
    ...Object.keys(plan.clusterSources).map((cluster) => [`sources:${cluster}`, 'present'] as const),
  ]);

function reloadReasons(before: ProxyPlan, after: ProxyPlan): string[] {
  const old = shapeOf(before);
  const next = shapeOf(after);
  const reasons: string[] = [];
  for (const [name, shape] of next) {
    if (!old.has(name)) reasons.push(`${name} added`);
    else if (old.get(name) !== shape) reasons.push(`${name} changed`);
  }
  for (const name of old.keys()) if (!next.has(name)) reasons.push(`${name} removed`);
  return reasons.sort();
}

function serverCommands(before: PlannedBackend, after: PlannedBackend): { add: string[]; remove: string[] } {
  const old = new Map(before.servers.map((s) => [s.name, s]));
  const next = new Map(after.servers.map((s) => [s.name, s]));
  const add: string[] = [];
  const remove: string[] = [];
  for (const server of after.servers) {
    const id = `${after.name}/${server.name}`;
    const was = old.get(server.name);
    if (was === undefined) {
      add.push(`add server ${id} ${serverKeywords(after, server)}`);
      if (server.ready) add.push(`enable server ${id}`);
    } else if (was.ready !== server.ready) (server.ready ? add : remove).push(`${server.ready ? 'enable' : 'disable'} server ${id}`);
  }
  for (const server of before.servers) if (!next.has(server.name)) remove.push(`disable server ${before.name}/${server.name}`, `del server ${before.name}/${server.name}`);
  return { add, remove };
}

/**
 * HTTP/2 backends that gain a server: HAProxy 2.6 opens a new upstream connection per request
 * to a server added at run time with `proto h2` (`max-reuse` is refused for them), so for
 * those a reload, which makes the server a configured one, is cheaper than the runtime command.
 */
function http2Additions(before: ProxyPlan, after: ProxyPlan): string[] {
  const old = new Map(before.backends.map((b) => [b.name, new Set(b.servers.map((s) => s.name))]));
  return after.backends.filter((b) => b.http2 && b.servers.some((s) => old.get(b.name)?.has(s.name) === false)).map((b) => `${b.name} gained an HTTP/2 server`);
}

export function diffProxyPlans(before: ProxyPlan | undefined, after: ProxyPlan, paths: HaproxyConfigPaths): ProxyChange {
  if (before === undefined) return { reloadReasons: ['first configuration'], commands: [] };
  const reasons = [...reloadReasons(before, after), ...http2Additions(before, after)];
  if (reasons.length > 0) return { reloadReasons: reasons, commands: [] };
  const aclAdd: string[] = [];
  const aclDel: string[] = [];
  for (const [cluster, ips] of Object.entries(after.clusterSources)) {
    const old = new Set(before.clusterSources[cluster] ?? []);
    const file = sourcesFile(paths, cluster);
    for (const ip of ips) if (!old.has(ip)) aclAdd.push(`add acl ${file} ${ip}`);
    for (const ip of old) if (!ips.includes(ip)) aclDel.push(`del acl ${file} ${ip}`);
  }
  const oldBackends = new Map(before.backends.map((b) => [b.name, b]));
  const add: string[] = [];
  const remove: string[] = [];
  for (const backend of after.backends) {
    const commands = serverCommands(oldBackends.get(backend.name) as PlannedBackend, backend);
    add.push(...commands.add);
    remove.push(...commands.remove);
  }
  return { reloadReasons: [], commands: [...aclAdd, ...add, ...remove, ...aclDel] };
}
