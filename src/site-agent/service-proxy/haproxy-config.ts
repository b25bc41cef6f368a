import type { ClusterId } from './proxy-model.js';
import type { PlannedBackend, PlannedFrontend, PlannedServer, ProxyPlan } from './proxy-plan.js';

/**
 * Prints a {@link ProxyPlan} as HAProxy 2.6's `haproxy.cfg` (pure, deterministic). The
 * cluster source lists are files beside it (`<sourcesDir>/<cluster>.lst`, one IP a line), so
 * pod arrivals and departures are runtime `add acl`/`del acl` commands, not reloads.
 */

export interface HaproxyConfigPaths {
  /** The worker's stats socket (runtime API), with `expose-fd listeners` for seamless reloads. */
  readonly statsSocket: string;
  /** Where the cluster source files are. */
  readonly sourcesDir: string;
}

/** Kept for established connections after a reload, then the old worker is stopped. */
const HARD_STOP_AFTER = '30m';
/** How long a TLS ClientHello may take to arrive on an SNI frontend. */
const SNI_INSPECT_DELAY = '5s';

const GLOBAL_AND_DEFAULTS = (paths: HaproxyConfigPaths): string[] => [
  '# Written by the Edgeplane site agent from the Services and Endpoints placed on this site; do not edit.',
  'global',
  '  master-worker',
  `  stats socket ${paths.statsSocket} mode 600 level admin expose-fd listeners`,
  '  stats timeout 30s',
  `  hard-stop-after ${HARD_STOP_AFTER}`,
  '  mworker-max-reloads 50',
  '',
  'defaults',
  '  mode tcp',
  '  timeout connect 3s',
  '  timeout client 1h',
  '  timeout server 1h',
  '  timeout client-fin 30s',
  '  timeout server-fin 30s',
  '  timeout http-request 30s',
  '  timeout http-keep-alive 60s',
  '  timeout queue 5s',
  '  retries 3',
  '  option redispatch 1',
];

/** The source list file of a cluster. */
export function sourcesFile(paths: HaproxyConfigPaths, cluster: ClusterId): string {
  return `${paths.sourcesDir}/${cluster}.lst`;
}

/** The cluster source files' contents, by cluster. */
export function sourceFileContents(plan: ProxyPlan): Map<ClusterId, string> {
  return new Map(Object.entries(plan.clusterSources).map(([cluster, ips]) => [cluster, ips.map((ip) => `${ip}\n`).join('')]));
}

export function renderHaproxyConfig(plan: ProxyPlan, paths: HaproxyConfigPaths): string {
  const lines = GLOBAL_AND_DEFAULTS(paths);
  for (const frontend of plan.frontends) lines.push('', ...frontendLines(frontend, paths));
  for (const backend of plan.backends) lines.push('', ...backendLines(backend));
  return `${lines.join('\n')}\n`;
}

function frontendLines(frontend: PlannedFrontend, paths: HaproxyConfigPaths): string[] {
  const clusters = [...new Set(frontend.routes.map((r) => r.cluster))].sort();
  const acl = (cluster: ClusterId): string => `from_${clusters.indexOf(cluster)}`;
  const lines = [`frontend ${frontend.name}`, `  mode ${frontend.mode}`, `  bind ${frontend.address}:${frontend.port}`];
  for (const cluster of clusters) lines.push(`  acl ${acl(cluster)} src -f ${sourcesFile(paths, cluster)}`);
  lines.push(`  tcp-request connection reject if ${clusters.map((c) => `!${acl(c)}`).join(' ')}`);
  const sni = frontend.routes.filter((r) => r.sniNames !== undefined);
  const conditions = frontend.routes.map((route) => (route.sniNames === undefined ? acl(route.cluster) : `${acl(route.cluster)} sni_${sni.indexOf(route)}`));
  if (sni.length > 0) {
    lines.push(`  tcp-request inspect-delay ${SNI_INSPECT_DELAY}`);
    sni.forEach((route, i) => lines.push(`  acl sni_${i} req.ssl_sni -i ${(route.sniNames ?? []).join(' ')}`));
    // Plain routes first (no waiting for a ClientHello), then TLS hellos with a known name; the rest is refused.
    frontend.routes.forEach((route, i) => route.sniNames === undefined && lines.push(`  tcp-request content accept if ${conditions[i] as string}`));
    sni.forEach((route, i) => lines.push(`  tcp-request content accept if ${acl(route.cluster)} { req.ssl_hello_type 1 } sni_${i}`));
    lines.push('  tcp-request content reject');
  }
  frontend.routes.forEach((route, i) => lines.push(`  use_backend ${route.backend} if ${conditions[i] as string}`));
  return lines;
}

/**
 * Idle server connections kept for reuse, spelled out: HAProxy 2.6 gives these defaults to
 * servers of the configuration file but not to servers made by `add server`, which then
 * close their connection after every request (measured: one TCP connect and accept per
 * request, a fifth of the request rate; `npm run bench -- proxy`).
 */
const IDLE_POOL = ['pool-max-conn -1', 'pool-purge-delay 5s'];

/** A server's keywords after its address: the same on its config line and in `add server`. */
export function serverKeywords(backend: PlannedBackend, server: PlannedServer): string {
  return [
    `${server.address}:${server.port}`,
    ...(backend.mode === 'http' ? IDLE_POOL : []),
    ...(backend.http2 ? ['proto h2'] : []),
    ...(server.ready ? [] : ['disabled']),
  ].join(' ');
}

function backendLines(backend: PlannedBackend): string[] {
  const lines = [`backend ${backend.name}`, `  mode ${backend.mode}`, '  balance roundrobin'];
  // TCP: the kernel moves the bytes between the two sockets (splice through a pipe), not HAProxy's
  // buffers: half the proxy's CPU for a bulk transfer (1 GiB: 50 % → 78 % of direct on 2 cores).
  // splice-auto never engaged here; forced splicing costs small exchanges a little more CPU.
  if (backend.mode === 'tcp') lines.push('  option splice-request', '  option splice-response');
  if (backend.mode === 'http') {
    const body = `no ready endpoint of Service ${backend.service.namespace}/${backend.service.name} port ${backend.port} on this site`;
    lines.push(
      '  option forwardfor',
      '  http-request set-header X-Forwarded-Proto http',
      '  http-reuse safe',
      `  http-error status 503 content-type text/plain string "${body}"`,
    );
  }
  for (const server of backend.servers) lines.push(`  server ${server.name} ${serverKeywords(backend, server)}`);
  return lines;
}
