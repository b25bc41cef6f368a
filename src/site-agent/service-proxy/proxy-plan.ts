import type { ClusterId, ProxyEndpoints, ProxyService, ProxyServicePort, SiteProxyInput } from './proxy-model.js';

/**
 * The site's Service proxy as data, a pure function of the Services, ready Endpoints and
 * cluster pod addresses on the site; `haproxy-config.ts` prints it, `proxy-diff.ts` compares
 * two of them. Everything is sorted, so equal inputs give equal plans.
 *
 * - One frontend per (ClusterIP, port): every virtual cluster allocates ClusterIPs from the
 *   same range, so two tenants' Services can share one; each route is chosen by the client's
 *   cluster (its source address among the cluster's pod IPs) and, for `TCP_PROXY_WITH_SNI`,
 *   by the TLS server name. A connection from a pod of no routed cluster is refused.
 * - A frontend is `mode http` when every route is `HTTP_PROXY`, else `mode tcp` (an HTTP
 *   backend behind a TCP frontend is HAProxy's implicit TCP-to-HTTP upgrade).
 * - One backend per Service port; its servers are the endpoints on the site, named
 *   `<ip>:<port>`, not-ready ones present but disabled (readiness flips are runtime commands).
 */

type ProxyMode = 'tcp' | 'http';

export interface PlannedServer {
  /** `<ip>:<port>`: stable, so the runtime API can address it. */
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly ready: boolean;
}

interface ServiceKey {
  readonly cluster: ClusterId;
  readonly namespace: string;
  readonly name: string;
}

export interface PlannedBackend {
  readonly name: string;
  readonly mode: ProxyMode;
  /** Servers speak HTTP/2 (h2c). */
  readonly http2: boolean;
  readonly service: ServiceKey;
  readonly port: number;
  readonly servers: readonly PlannedServer[];
}

interface FrontendRoute {
  readonly cluster: ClusterId;
  readonly backend: string;
  /** Set for `TCP_PROXY_WITH_SNI`: the server names routed to the backend (lowercase). */
  readonly sniNames?: readonly string[];
}

export interface PlannedFrontend {
  readonly name: string;
  readonly address: string;
  readonly port: number;
  readonly mode: ProxyMode;
  readonly routes: readonly FrontendRoute[];
}

/** Something about one Service the proxy cannot do, for an Event on it. */
interface ProxyProblem {
  readonly service: ServiceKey;
  readonly message: string;
}

export interface ProxyPlan {
  readonly frontends: readonly PlannedFrontend[];
  readonly backends: readonly PlannedBackend[];
  /** Each routed cluster's pod IPs on the site (sorted): the sources its routes accept. */
  readonly clusterSources: Readonly<Record<ClusterId, readonly string[]>>;
  readonly problems: readonly ProxyProblem[];
}

const byName = <T extends { name: string }>(a: T, b: T): number => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
const serviceId = (s: ServiceKey): string => `${s.cluster}:${s.namespace}:${s.name}`;

/** The names a `TCP_PROXY_WITH_SNI` Service answers for. */
function sniNamesFor(service: ProxyService): string[] {
  const own = [service.name, `${service.name}.${service.namespace}`, `${service.name}.${service.namespace}.svc.cluster.local`];
  return [...new Set([...own, ...service.sniNames].map((name) => name.toLowerCase()))].sort();
}

function serversFor(endpoints: ProxyEndpoints | undefined, port: ProxyServicePort, onlyPort: boolean): PlannedServer[] {
  const servers = new Map<string, PlannedServer>();
  for (const subset of endpoints?.subsets ?? []) {
    const target = subset.ports.find((p) => p.name === port.name && p.protocol === port.protocol) ?? (onlyPort && subset.ports.length === 1 ? subset.ports[0] : undefined);
    if (target === undefined) continue;
    for (const [ips, ready] of [[subset.notReady, false], [subset.ready, true]] as const) {
      for (const address of ips) {
        const name = `${address}:${target.port}`;
        servers.set(name, { name, address, port: target.port, ready });
      }
    }
  }
  return [...servers.values()].sort(byName);
}

interface Candidate {
  readonly service: ProxyService;
  readonly port: ProxyServicePort;
  readonly backend: PlannedBackend;
}

export function planProxy(input: SiteProxyInput): ProxyPlan {
  const problems: ProxyProblem[] = [];
  const endpoints = new Map(input.endpoints.map((e) => [serviceId(e), e]));
  const byAddress = new Map<string, Candidate[]>();
  const services = [...input.services].sort((a, b) => (serviceId(a) < serviceId(b) ? -1 : 1));
  for (const service of services) {
    if (service.clusterIP === '' || service.clusterIP === 'None') continue;
    const key: ServiceKey = { cluster: service.cluster, namespace: service.namespace, name: service.name };
    for (const port of service.ports) {
      if (port.protocol !== 'TCP') {
        problems.push({ service: key, message: `port ${port.port}/${port.protocol} is not proxied: the site proxy carries TCP only` });
        continue;
      }
      const mode: ProxyMode = service.proxyType === 'HTTP_PROXY' ? 'http' : 'tcp';
      const backend: PlannedBackend = {
        name: `be:${serviceId(key)}:${port.port}`,
        mode,
        http2: mode === 'http' && service.http2,
        service: key,
        port: port.port,
        servers: serversFor(endpoints.get(serviceId(key)), port, service.ports.length === 1),
      };
      const at = `${service.clusterIP}:${port.port}`;
      byAddress.set(at, [...(byAddress.get(at) ?? []), { service, port, backend }]);
    }
  }
  const frontends: PlannedFrontend[] = [];
  const backends: PlannedBackend[] = [];
  for (const [at, candidates] of byAddress) {
    const routes = routesFor(candidates, problems);
    if (routes.length === 0) continue;
    const chosen = candidates.filter((c) => routes.some((r) => r.backend === c.backend.name));
    backends.push(...chosen.map((c) => c.backend));
    const first = candidates[0] as Candidate;
    frontends.push({ name: `fe:${at}`, address: first.service.clusterIP, port: first.port.port, mode: chosen.every((c) => c.backend.mode === 'http') ? 'http' : 'tcp', routes });
  }
  const routed = new Set(frontends.flatMap((f) => f.routes.map((r) => r.cluster)));
  const clusterSources: Record<ClusterId, string[]> = {};
  for (const cluster of [...routed].sort()) clusterSources[cluster] = [...new Set(input.clusterPods[cluster] ?? [])].sort();
  return { frontends: frontends.sort(byName), backends: backends.sort(byName), clusterSources, problems };
}

/**
 * The routes of one (ClusterIP, port). Per cluster: one non-SNI Service, or any number of SNI
 * Services with distinct names; what conflicts is dropped with a problem (the first Service
 * in name order keeps the address or the name).
 */
function routesFor(candidates: readonly Candidate[], problems: ProxyProblem[]): FrontendRoute[] {
  const routes: FrontendRoute[] = [];
  const clusters = [...new Set(candidates.map((c) => c.service.cluster))].sort();
  for (const cluster of clusters) {
    const mine = candidates.filter((c) => c.service.cluster === cluster);
    const owner = mine[0] as Candidate;
    const at = `${owner.service.clusterIP}:${owner.port.port}`;
    if (owner.service.proxyType !== 'TCP_PROXY_WITH_SNI') {
      routes.push({ cluster, backend: owner.backend.name });
      for (const other of mine.slice(1)) problems.push({ service: other.backend.service, message: `${at} is already Service ${owner.service.namespace}/${owner.service.name}'s` });
      continue;
    }
    const taken = new Map<string, string>();
    for (const candidate of mine) {
      const id = `${candidate.service.namespace}/${candidate.service.name}`;
      if (candidate.service.proxyType !== 'TCP_PROXY_WITH_SNI') {
        problems.push({ service: candidate.backend.service, message: `${at} is shared by TCP_PROXY_WITH_SNI Services; only those can share it` });
        continue;
      }
      const names = sniNamesFor(candidate.service).filter((name) => {
        const holder = taken.get(name);
        if (holder !== undefined) problems.push({ service: candidate.backend.service, message: `server name ${name} on ${at} is already Service ${holder}'s` });
        return holder === undefined;
      });
      for (const name of names) taken.set(name, id);
      if (names.length > 0) routes.push({ cluster, backend: candidate.backend.name, sniNames: names });
    }
  }
  return routes;
}
