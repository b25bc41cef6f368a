import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { createLogger, LOG_FORMATS, LOG_LEVELS, type LogFormat } from '../observability/logger.js';
import type { LocalSites } from '../server/local-sites.js';
import type { StarterCluster } from '../server/starter-cluster.js';
import { type ListenAddress, parseListenAddress } from '../common/listen-address.js';
import type { StoreConfig } from '../store/open-store.js';
import { IDENTITY_KEY_ALGORITHMS, type IdentityKeyAlgorithm } from '../identity/identity-key-algorithm.js';
import { durationArgument, durationArgumentAtLeast } from './duration-argument.js';
import { DEFAULT_SERVER_LIMITS as LIMITS, type ServerLimits } from '../server/server-limits.js';
import { shellQuote, StartProgress } from './start-progress.js';
import { untilSignal } from './until-signal.js';
import { addRuntimeProgramOptions, runtimeProgramPaths, type RuntimeProgramFlags } from './runtime-program-options.js';

interface ServerOptions extends RuntimeProgramFlags {
  home: string;
  listen: ListenAddress;
  store: 'sqlite' | 'etcd';
  etcdEndpoints?: string[];
  logLevel: string;
  logFormat: LogFormat;
  tenant: string;
  dnsServer?: string;
  maxRequestBytes: number;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  localSites: boolean;
  starterCluster: boolean;
  identityKekFile?: string;
  previousKekFile?: string[];
  identityKeyAlgorithm: IdentityKeyAlgorithm;
  identityCertificateLifetime?: number;
  identityCustomerEdgeCertificateLifetime?: number;
  streamIdleTimeout: number;
  readHeaderTimeout: number;
  readTimeout: number;
  idleTimeout: number;
  maxConnections: number;
  maxConnectionsPerAddress: number;
  configApiRate: number;
  configApiBurst?: number;
  auditLogPath?: string;
  shutdownTimeout: number;
  nodeMonitorGracePeriod: number;
}

function listenArgument(value: string): ListenAddress {
  try {
    return parseListenAddress(value);
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

/** `--etcd-endpoints`: comma-separated etcd client URLs. */
export function endpointsArgument(value: string): string[] {
  const endpoints = value.split(',').map((e) => e.trim()).filter((e) => e !== '');
  for (const endpoint of endpoints) {
    if (!/^https?:\/\/[^/]+\/?$/.test(endpoint)) throw new InvalidArgumentError(`"${endpoint}" is not an etcd client URL like http://127.0.0.1:2379`);
  }
  if (endpoints.length === 0) throw new InvalidArgumentError('give at least one etcd endpoint');
  return endpoints;
}

/** `--previous-kek-file`: repeatable, and comma-separated (so its environment variable can list several). */
export function kekFilesArgument(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((f) => f.trim()).filter((f) => f !== '')];
}

export const PREVIOUS_KEK_OPTION_HELP =
  'a key-encryption key the current one replaced (repeatable): what it sealed or encrypted stays readable until "edgeplane store re-encrypt" has moved it under the current key';

export function serverCommand(): Command {
  const server = new Command('server')
    .description('Run the control plane: HTTPS API server with the platform CA, health, version and metrics.')
    .addOption(new Option('--home <dir>', 'state folder: PKI, embedded store, credentials').env('EDGEPLANE_HOME').default('.edgeplane'))
    .addOption(
      new Option('--listen <host:port>', 'address to serve HTTPS on').env('EDGEPLANE_LISTEN').default(parseListenAddress('127.0.0.1:6443'), '127.0.0.1:6443').argParser(listenArgument),
    )
    .addOption(new Option('--store <backend>', 'where state is kept').choices(['sqlite', 'etcd']).env('EDGEPLANE_STORE').default('sqlite'))
    .addOption(new Option('--etcd-endpoints <urls>', 'comma-separated etcd client URLs (with --store etcd)').env('EDGEPLANE_ETCD_ENDPOINTS').argParser(endpointsArgument))
    .addOption(new Option('--tenant <name>', 'tenant created on first start; its admin token goes to <home>/api-token').env('EDGEPLANE_TENANT').default('acme'))
    .addOption(new Option('--dns-server <host:port>', 'DNS server for dns_domain verification (default: the system resolvers)').env('EDGEPLANE_DNS_SERVER'))
    .addOption(
      new Option('--max-request-bytes <n>', 'largest configuration API request body').env('EDGEPLANE_MAX_REQUEST_BYTES').default(1024 * 1024, '1048576').argParser((v) => {
        const n = Number(v);
        if (!Number.isInteger(n) || n < 1024) throw new InvalidArgumentError('must be a whole number of bytes, at least 1024');
        return n;
      }),
    )
    .addOption(new Option('--max-requests-inflight <n>', 'virtual cluster read requests served at once before 429 (as kube-apiserver)').env('EDGEPLANE_MAX_REQUESTS_INFLIGHT').default(400).argParser(positiveInteger))
    .addOption(new Option('--max-mutating-requests-inflight <n>', 'virtual cluster write requests served at once before 429').env('EDGEPLANE_MAX_MUTATING_REQUESTS_INFLIGHT').default(200).argParser(positiveInteger))
    .addOption(new Option('--read-header-timeout <duration>', 'a request\'s line and headers must arrive within this (a new connection\'s TLS handshake too), e.g. 30s, 500ms').env('EDGEPLANE_READ_HEADER_TIMEOUT').default(LIMITS.readHeaderTimeoutMs, seconds(LIMITS.readHeaderTimeoutMs)).argParser(timeout))
    .addOption(new Option('--read-timeout <duration>', 'a whole request, body included, must arrive within this (responses such as watches are not limited)').env('EDGEPLANE_READ_TIMEOUT').default(LIMITS.readTimeoutMs, seconds(LIMITS.readTimeoutMs)).argParser(timeout))
    .addOption(new Option('--idle-timeout <duration>', 'a keep-alive connection with no request in progress is closed after this').env('EDGEPLANE_IDLE_TIMEOUT').default(LIMITS.idleTimeoutMs, seconds(LIMITS.idleTimeoutMs)).argParser(timeout))
    .addOption(new Option('--max-connections <n>', 'connections open at once; more are closed when accepted (lowered to fit the open-file limit)').env('EDGEPLANE_MAX_CONNECTIONS').default(LIMITS.maxConnections).argParser(positiveInteger))
    .addOption(new Option('--max-connections-per-address <n>', 'connections open at once from one client address').env('EDGEPLANE_MAX_CONNECTIONS_PER_ADDRESS').default(LIMITS.maxConnectionsPerAddress).argParser(positiveInteger))
    .addOption(new Option('--config-api-rate <n>', 'configuration API requests per second per credential (per client address without a valid one) before 429; 0: no limit').env('EDGEPLANE_CONFIG_API_RATE').default(LIMITS.configApiRate).argParser(nonNegativeNumber))
    .addOption(new Option('--config-api-burst <n>', 'configuration API requests a credential may make at once above its rate (default: twice the rate)').env('EDGEPLANE_CONFIG_API_BURST').argParser(positiveInteger))
    .addOption(new Option('--local-sites', 'also run three local simulated sites in this process (regional edges local-re-1, local-re-2; customer edge local-ce-1 of the default tenant)').env('EDGEPLANE_LOCAL_SITES').default(false))
    .addOption(new Option('--no-starter-cluster', 'with --local-sites, do not make the virtual cluster default/vk8s and <home>/kubeconfig on first start'))
    .addOption(
      new Option(
        '--identity-kek-file <file>',
        'key-encryption key sealing the platform CA\'s and the identity service\'s private keys in the store and encrypting secrets at rest (vK8s Secrets, config secret fields); give every server over one store the same file (32 bytes: raw, hex or base64; default <home>/keys/identity.kek, made on first start)',
      ).env('EDGEPLANE_IDENTITY_KEK_FILE'),
    )
    .addOption(new Option('--previous-kek-file <file>', PREVIOUS_KEK_OPTION_HELP).env('EDGEPLANE_PREVIOUS_KEK_FILES').argParser(kekFilesArgument))
    .addOption(new Option('--identity-key-algorithm <algorithm>', 'key algorithm of identity CAs made from now on').choices(IDENTITY_KEY_ALGORITHMS).env('EDGEPLANE_IDENTITY_KEY_ALGORITHM').default('ECDSA_P256'))
    .addOption(new Option('--identity-certificate-lifetime <duration>', 'lifetime of workload certificates, e.g. 24h, 90m (at least 1m; default 24h)').env('EDGEPLANE_IDENTITY_CERTIFICATE_LIFETIME').argParser(durationArgument))
    .addOption(
      new Option('--identity-customer-edge-certificate-lifetime <duration>', 'lifetime of the certificates of pods on customer edges (default: --identity-certificate-lifetime): their sidecars renew at half of it, so a customer edge keeps its pods\' identities offline for at least 40 % of it (docs/SITES.md)')
        .env('EDGEPLANE_IDENTITY_CUSTOMER_EDGE_CERTIFICATE_LIFETIME')
        .argParser(durationArgument),
    )
    .addOption(new Option('--stream-idle-timeout <duration>', 'exec, attach and port-forward sessions with no traffic this long are closed (kubelet\'s --streaming-connection-idle-timeout), e.g. 4h, 30m').env('EDGEPLANE_STREAM_IDLE_TIMEOUT').default(4 * 3_600_000, '4h').argParser(durationArgument))
    .addOption(
      new Option('--shutdown-timeout <duration>', 'on SIGTERM/SIGINT: how long requests in progress may take to finish before the connections still open are cut (watches, long polls and tunnels are ended at once)')
        .env('EDGEPLANE_SHUTDOWN_TIMEOUT')
        .default(30_000, '30s')
        .argParser(timeout),
    )
    .addOption(
      new Option('--node-monitor-grace-period <duration>', 'a site without a heartbeat this long is FAILED and its Nodes Unknown (kube-controller-manager\'s flag); counted from the server\'s start too')
        .env('EDGEPLANE_NODE_MONITOR_GRACE_PERIOD')
        .default(40_000, '40s')
        .argParser(wholeSeconds),
    )
    .addOption(new Option('--audit-log-path <file>', 'audit log of pod sessions (exec, attach, port-forward): audit.k8s.io/v1 Events, one JSON a line, made 0600 (default: <home>/audit/sessions.log)').env('EDGEPLANE_AUDIT_LOG_PATH'))
    .addOption(new Option('--log-level <level>', 'least severe level logged').choices(LOG_LEVELS).env('EDGEPLANE_LOG_LEVEL').default('info'))
    .addOption(new Option('--log-format <format>', 'auto: readable lines on a terminal, JSON otherwise').choices(LOG_FORMATS).env('EDGEPLANE_LOG_FORMAT').default('auto'));
  // With --local-sites: the local customer edge's runc runtime.
  return addRuntimeProgramOptions(server)
    .addHelpText(
      'after',
      [
        '',
        'Servers over one store (--store etcd) are one platform: the platform CA (what kubeconfigs, site agents and',
        'tokens trust) and the identity keys live in the store, sealed under the key-encryption key, so start every',
        'server with the same --identity-kek-file; a server whose key cannot open them does not start. Each server',
        'keeps its own serving certificate in <home>/pki, signed by that CA; <home>/pki/ca.crt is the CA for clients.',
        'A home made before keeps its own CA (<home>/pki/ca.key): it is imported into a store that has none.',
        '',
        'The server runs until SIGINT (Ctrl-C) or SIGTERM, then stops accepting connections, ends watches and long',
        'polls (answered: clients watch again), sends GOAWAY on the sites\' tunnels (agents dial again), lets other',
        'requests finish for at most --shutdown-timeout, cuts what is still open, and closes the store. A second',
        'signal exits at once.',
      ].join('\n'),
    )
    .action(async (options: ServerOptions) => {
      const limits = serverLimits(options);
      const logger = createLogger({ level: options.logLevel, format: options.logFormat });
      const progress = new StartProgress();
      const home = resolve(options.home);
      let store: StoreConfig | undefined;
      if (options.store === 'etcd') {
        if (options.etcdEndpoints === undefined) throw new Error('--store etcd needs --etcd-endpoints (or EDGEPLANE_ETCD_ENDPOINTS)');
        store = { backend: 'etcd', endpoints: options.etcdEndpoints };
      }
      const controlPlaneStarted = progress.step(`starting the control plane (home ${home})`);
      // Loaded here, not at the top: every other command (the sidecar in each pod above all)
      // stays free of the control plane's modules and their memory.
      const { startControlPlane } = await import('../server/control-plane.js');
      const controlPlane = await startControlPlane({
        home,
        limits,
        listen: options.listen,
        logger,
        defaultTenant: options.tenant,
        bodyLimit: options.maxRequestBytes,
        maxInflight: { readOnly: options.maxRequestsInflight, mutating: options.maxMutatingRequestsInflight },
        ...(options.dnsServer === undefined ? {} : { dnsServer: options.dnsServer }),
        ...(store === undefined ? {} : { store }),
        identityKeyAlgorithm: options.identityKeyAlgorithm,
        ...(options.auditLogPath === undefined ? {} : { auditLogPath: resolve(options.auditLogPath) }),
        ...(options.identityKekFile === undefined ? {} : { identityKekFile: resolve(options.identityKekFile) }),
        ...(options.previousKekFile === undefined ? {} : { previousKekFiles: options.previousKekFile.map((f) => resolve(f)) }),
        ...(options.identityCertificateLifetime === undefined ? {} : { identityCertificateLifetimeMs: options.identityCertificateLifetime }),
        ...(options.identityCustomerEdgeCertificateLifetime === undefined
          ? {}
          : { identityCustomerEdgeCertificateLifetimeMs: options.identityCustomerEdgeCertificateLifetime }),
        streamIdleTimeoutMs: options.streamIdleTimeout,
        shutdownTimeoutMs: options.shutdownTimeout,
        siteGraceSeconds: options.nodeMonitorGracePeriod / 1000,
      });
      controlPlaneStarted(`control plane serving ${controlPlane.url}`);
      let localSites: LocalSites | undefined;
      try {
        if (options.localSites) {
          const sitesStarted = progress.step('starting the local sites');
          localSites = await (await import('../server/local-sites.js')).startLocalSites({ home, url: controlPlane.url, logger, programs: runtimeProgramPaths(options) });
          sitesStarted(`local sites ${localSites.sites.join(', ')}`);
        }
      } catch (error) {
        await controlPlane.close();
        throw error;
      }
      let starter: StarterCluster | undefined;
      if (options.localSites && options.starterCluster) {
        const clusterReady = progress.step('virtual cluster default/vk8s and its kubeconfig');
        try {
          const { ensureStarterCluster } = await import('../server/starter-cluster.js');
          starter = await ensureStarterCluster({ home, url: controlPlane.url, logger });
          clusterReady(`virtual cluster default/vk8s, kubeconfig ${starter.outcome === 'kept' ? 'kept' : starter.outcome}`);
        } catch (error) {
          // The server is up and usable without it: say why, and keep serving.
          logger.error({ err: error }, 'the starter virtual cluster could not be made; create one with "edgeplane config create virtual_k8s"');
        }
      }
      // For a person: on a terminal, and always in the quick-start mode (npm start).
      if (options.localSites || progress.enabled) process.stderr.write(readyMessage({ url: controlPlane.url, home, tenant: options.tenant, seconds: progress.elapsedSeconds(), ...(starter === undefined ? {} : { starter }) }));
      const close = async (): Promise<void> => {
        await localSites?.close();
        await controlPlane.close();
      };
      await untilSignal(close, logger);
    });
}

/** What to do next, printed once the server is up: the kubeconfig to export and a first kubectl command, where the API token is. */
function readyMessage(o: { url: string; home: string; tenant: string; seconds: string; starter?: StarterCluster }): string {
  const lines = ['', `Edgeplane is ready at ${o.url} (started in ${o.seconds} s).`];
  const usable = o.starter !== undefined && o.starter.outcome !== 'foreign' && o.starter.outcome !== 'no-token';
  const defaultHome = o.home === resolve('.edgeplane');
  if (o.starter !== undefined && usable) {
    lines.push(
      'The virtual cluster default/vk8s runs workloads on the regional edges local-re-1 and local-re-2',
      '(the annotation svc.io/sites=system/local-ce-1 moves one to the customer edge). In another terminal:',
      '',
      `  export KUBECONFIG=${shellQuote(o.starter.kubeconfig)}`,
      '  kubectl get nodes',
      '  kubectl create deployment web --image=nginx:1.25 && kubectl get pods -o wide',
      '',
    );
  } else if (o.starter?.outcome === 'foreign') {
    lines.push(`${o.starter.kubeconfig} is not the one edgeplane writes; it was left as it is.`, '');
  } else {
    lines.push('');
  }
  lines.push(
    `The configuration API's admin token (tenant ${o.tenant}) is in ${join(o.home, 'api-token')}; the edgeplane`,
    `commands read it from there${defaultHome ? '' : ` with EDGEPLANE_HOME=${shellQuote(o.home)}`}: npx edgeplane config list virtual_k8s -n default`,
    'This terminal keeps the server (and its local sites) running; Ctrl-C stops it.',
    '',
  );
  return lines.join('\n') + '\n';
}

const timeout = durationArgumentAtLeast(100);
const atLeastOneSecond = durationArgumentAtLeast(1000);

/** A duration of whole seconds (store leases count seconds), at least 1 s. */
function wholeSeconds(value: string): number {
  const ms = atLeastOneSecond(value);
  if (ms % 1000 !== 0) throw new InvalidArgumentError('must be whole seconds, e.g. 40s, 2m');
  return ms;
}

function seconds(ms: number): string {
  return `${ms / 1000}s`;
}

/** The limits the options ask for; the read timeouts must fit inside each other, as node requires. */
function serverLimits(options: ServerOptions): ServerLimits {
  if (options.readHeaderTimeout > options.readTimeout) {
    throw new Error(`--read-header-timeout (${options.readHeaderTimeout} ms) must not be longer than --read-timeout (${options.readTimeout} ms): the whole request includes its headers`);
  }
  return {
    readHeaderTimeoutMs: options.readHeaderTimeout,
    readTimeoutMs: options.readTimeout,
    idleTimeoutMs: options.idleTimeout,
    maxConnections: options.maxConnections,
    maxConnectionsPerAddress: options.maxConnectionsPerAddress,
    configApiRate: options.configApiRate,
    configApiBurst: options.configApiBurst ?? Math.max(1, Math.ceil(2 * options.configApiRate)),
  };
}

function nonNegativeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number, at least 0');
  return n;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a whole number, at least 1');
  return n;
}
