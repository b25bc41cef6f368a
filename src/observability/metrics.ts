import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { CellCounter, CellHistogram } from './metric-cells.js';

/**
 * The metrics of one process, in one registry served at /metrics (no global registry). Those
 * recorded per request or per store operation are cell metrics (a label set found once, then
 * plain additions): prom-client's own hash every call's labels.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: CellCounter<'method' | 'route' | 'code'>;
  readonly httpDuration: CellHistogram<'method' | 'route'>;
  readonly storeOperations: CellCounter<'backend' | 'operation' | 'result'>;
  readonly storeDuration: CellHistogram<'backend' | 'operation'>;
  readonly storeWatches: Gauge<'backend'>;
  /** The watch caches' fan-out (labels as kube-apiserver's: API group, resource). */
  readonly watchCache: WatchCacheMetrics;
  /** What the HTTPS server does about abusive clients: connection caps, read timeouts, rate limits. */
  readonly abuse: AbuseMetrics;
}

interface AbuseMetrics {
  readonly connectionsOpen: Gauge;
  /** `reason`: `server` (the server's cap) or `address` (the cap per client address). */
  readonly connectionsRejected: Counter<'reason'>;
  readonly readTimeouts: Counter;
  /** `api`: which API refused; `key`: `credential` or `address` (unauthenticated requests). */
  readonly rateLimited: Counter<'api' | 'key'>;
}

export interface WatchCacheMetrics {
  readonly passDuration: CellHistogram<'group' | 'resource'>;
  readonly flushes: CellCounter<'group' | 'resource'>;
  readonly events: CellCounter<'group' | 'resource'>;
}

export function createMetrics(build: { version: string; gitCommit: string }): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  new Gauge({
    name: 'edgeplane_build_info',
    help: 'Build of the running edgeplane process (value is always 1).',
    labelNames: ['version', 'git_commit', 'node_version'],
    registers: [registry],
  }).set({ version: build.version, git_commit: build.gitCommit, node_version: process.version }, 1);
  return {
    registry,
    httpRequests: new CellCounter({
      name: 'edgeplane_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status code.',
      labelNames: ['method', 'route', 'code'],
      registers: [registry],
    }),
    httpDuration: new CellHistogram({
      name: 'edgeplane_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by method and route pattern.',
      labelNames: ['method', 'route'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    storeOperations: new CellCounter({
      name: 'edgeplane_store_operations_total',
      help: 'Store port operations, by backend, operation and result (ok or the StoreError code).',
      labelNames: ['backend', 'operation', 'result'],
      registers: [registry],
    }),
    storeDuration: new CellHistogram({
      name: 'edgeplane_store_operation_duration_seconds',
      help: 'Duration of store port operations, by backend and operation.',
      labelNames: ['backend', 'operation'],
      buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    storeWatches: new Gauge({
      name: 'edgeplane_store_watches',
      help: 'Store watches currently open, by backend.',
      labelNames: ['backend'],
      registers: [registry],
    }),
    watchCache: {
      passDuration: new CellHistogram({
        name: 'edgeplane_watch_cache_fanout_pass_duration_seconds',
        help: 'Time a watch cache takes to offer its new events to every watch once (a pass; yields to the event loop included): how late an event may reach a watch.',
        labelNames: ['group', 'resource'],
        buckets: [0.001, 0.0025, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.075, 0.1, 0.25, 1],
        registers: [registry],
      }),
      flushes: new CellCounter({
        name: 'edgeplane_watch_cache_flushes_total',
        help: 'Groups of events a watch cache handed to a watch in one write; edgeplane_watch_events_total over this is the events per write.',
        labelNames: ['group', 'resource'],
        registers: [registry],
      }),
      events: new CellCounter({
        name: 'edgeplane_watch_events_total',
        help: 'Events the watch caches sent to watches, counted once per watch (as kube-apiserver counts apiserver_watch_events_total).',
        labelNames: ['group', 'resource'],
        registers: [registry],
      }),
    },
    abuse: {
      connectionsOpen: new Gauge({
        name: 'edgeplane_http_connections',
        help: 'TCP connections open on the HTTPS server.',
        registers: [registry],
      }),
      connectionsRejected: new Counter({
        name: 'edgeplane_http_connections_rejected_total',
        help: 'TCP connections closed as soon as accepted, by the cap they were over: server (--max-connections) or address (--max-connections-per-address).',
        labelNames: ['reason'],
        registers: [registry],
      }),
      readTimeouts: new Counter({
        name: 'edgeplane_http_read_timeouts_total',
        help: 'Connections closed with 408 because a request\'s headers or body did not arrive in time (--read-header-timeout, --read-timeout).',
        registers: [registry],
      }),
      rateLimited: new Counter({
        name: 'edgeplane_rate_limited_requests_total',
        help: 'Requests refused with 429 by a rate limit, by API and by what the limit was keyed on: the credential, or the client address of an unauthenticated request.',
        labelNames: ['api', 'key'],
        registers: [registry],
      }),
    },
  };
}
