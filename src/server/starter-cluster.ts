import { randomBytes, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { httpsRequest, type HttpsResponse } from '../client/https-client.js';
import type { Logger } from '../observability/logger.js';
import { writeFileAtomic } from '../common/atomic-file.js';

/** The virtual cluster `npm start` leaves ready to use: `default/vk8s`. */
const STARTER_CLUSTER = { namespace: 'default', name: 'vk8s' } as const;

/**
 * Its default placement: the platform's shared virtual site of every regional edge (made at
 * bootstrap), so a Deployment runs on local-re-1 and local-re-2 — and on any regional edge that
 * joins later, as every cluster's default does. The local customer edge, the tenant's own site,
 * is where workloads go when they ask for it (`svc.io/sites: system/local-ce-1`); `kubectl get
 * nodes` lists all three either way.
 */
const STARTER_PLACEMENT = [{ namespace: 'svc-io-shared', name: 'all-regional-edges' }] as const;

/** Kubeconfigs last 90 days (the most a credential may); one with less than this left is renewed at start. */
const EXPIRATION_DAYS = 90;
const RENEW_WITHIN_MS = 10 * 24 * 3600 * 1000;

export interface StarterClusterOptions {
  /** `$EDGEPLANE_HOME`: the kubeconfig goes to `<home>/kubeconfig`; the tenant's admin token is `<home>/api-token`. */
  readonly home: string;
  /** The control plane's URL (what the kubeconfig points to). */
  readonly url: string;
  readonly logger: Logger;
  /** What time it is (tests of renewal); default now. */
  readonly now?: () => number;
}

type StarterClusterOutcome =
  /** A new kubeconfig was written (first start, or the file was missing). */
  | 'written'
  /** The kubeconfig was ours and current: left untouched. */
  | 'kept'
  /** The kubeconfig was ours; its server URL changed (another --listen) and was updated. */
  | 'updated'
  /** The kubeconfig was ours and about to expire (or expired): a new one replaced it. */
  | 'renewed'
  /** A file that is not the starter cluster's kubeconfig is there: left as it is. */
  | 'foreign'
  /** No admin token to act with (`<home>/api-token` missing): nothing done. */
  | 'no-token';

export interface StarterCluster {
  readonly outcome: StarterClusterOutcome;
  readonly kubeconfig: string;
  readonly tokenFile: string;
  /** Whether this start created the virtual_k8s object. */
  readonly createdCluster: boolean;
}

interface OurKubeconfig {
  readonly server: string;
  readonly notAfter: number;
}

const CONTEXT = `${STARTER_CLUSTER.namespace}_${STARTER_CLUSTER.name}`;
const CLUSTER_PATH = `/api/vk8s/namespaces/${STARTER_CLUSTER.namespace}/${STARTER_CLUSTER.name}`;

/** The starter cluster's kubeconfig as `edgeplane` wrote it (context, cluster path, client certificate), or undefined for any other file. */
function readOurs(text: string): OurKubeconfig | undefined {
  try {
    const config = parseDocument(text).toJS() as {
      'current-context'?: string;
      contexts?: Array<{ name?: string; context?: { cluster?: string; user?: string } }>;
      clusters?: Array<{ name?: string; cluster?: { server?: string } }>;
      users?: Array<{ name?: string; user?: { 'client-certificate-data'?: string } }>;
    };
    if (config['current-context'] !== CONTEXT) return undefined;
    const context = config.contexts?.find((c) => c.name === CONTEXT)?.context;
    const server = config.clusters?.find((c) => c.name === context?.cluster)?.cluster?.server;
    const certificate = config.users?.find((u) => u.name === context?.user)?.user?.['client-certificate-data'];
    if (typeof server !== 'string' || !server.endsWith(CLUSTER_PATH) || typeof certificate !== 'string') return undefined;
    return { server, notAfter: Date.parse(new X509Certificate(Buffer.from(certificate, 'base64')).validTo) };
  } catch {
    return undefined;
  }
}

/** The file with the server URL of our cluster entry replaced, everything else (comments, other entries) kept. */
function withServer(text: string, server: string): string {
  const document = parseDocument(text);
  const clusters = document.get('clusters') as { items: Array<{ get(k: string): unknown; setIn(path: string[], v: unknown): void }> };
  for (const cluster of clusters.items) {
    if (cluster.get('name') === CONTEXT) cluster.setIn(['cluster', 'server'], server);
  }
  return document.toString();
}

/**
 * `npm start`'s last step (with --local-sites): the virtual cluster `default/vk8s` over the
 * local sites and its kubeconfig in `<home>/kubeconfig` (mode 0600), so `kubectl` works at once.
 *
 * Idempotent over restarts: the virtual_k8s object is created only when missing and the
 * kubeconfig is issued only when `<home>/kubeconfig` is missing. A kubeconfig that is there is
 * not rewritten, except when it is the one written here and its server URL changed (updated
 * in place) or its certificate expires within 10 days (a new one is issued). A file that is
 * not the starter cluster's is never touched. It acts through the configuration API with the
 * tenant's admin token, as a user would.
 */
export async function ensureStarterCluster(options: StarterClusterOptions): Promise<StarterCluster> {
  const { home, url, logger } = options;
  const kubeconfig = join(home, 'kubeconfig');
  const tokenFile = join(home, 'api-token');
  const clusterUrl = `${url}${CLUSTER_PATH}`;
  const now = options.now ?? Date.now;

  let existing: string | undefined;
  let renew = false;
  if (existsSync(kubeconfig)) {
    existing = readFileSync(kubeconfig, 'utf8');
    const ours = readOurs(existing);
    if (ours === undefined) {
      logger.info({ kubeconfig }, 'kubeconfig is not the starter cluster\'s; left as it is');
      return { outcome: 'foreign', kubeconfig, tokenFile, createdCluster: false };
    }
    renew = ours.notAfter - now() < RENEW_WITHIN_MS;
    if (!renew) {
      if (ours.server === clusterUrl) return { outcome: 'kept', kubeconfig, tokenFile, createdCluster: false };
      writeFileAtomic(kubeconfig, withServer(existing, clusterUrl), 0o600);
      logger.info({ kubeconfig, server: clusterUrl }, 'kubeconfig points to the new server URL');
      return { outcome: 'updated', kubeconfig, tokenFile, createdCluster: false };
    }
  }
  if (!existsSync(tokenFile)) {
    logger.warn({ tokenFile }, `no admin token at ${tokenFile}: the starter virtual cluster and its kubeconfig are not made`);
    return { outcome: 'no-token', kubeconfig, tokenFile, createdCluster: false };
  }

  const token = readFileSync(tokenFile, 'utf8').trim();
  const ca = readFileSync(join(home, 'pki', 'ca.crt'), 'utf8');
  const call = async (method: string, path: string, body?: unknown): Promise<HttpsResponse> =>
    httpsRequest(`${url}${path}`, ca, {
      method,
      headers: { authorization: `APIToken ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const failed = (what: string, r: HttpsResponse): Error => new Error(`starter cluster: ${what} was refused (HTTP ${r.status}): ${r.body}`);

  const collection = `/api/config/namespaces/${STARTER_CLUSTER.namespace}/virtual_k8ss`;
  let createdCluster = false;
  const found = await call('GET', `${collection}/${STARTER_CLUSTER.name}`);
  if (found.status === 404) {
    const created = await call('POST', collection, {
      metadata: { name: STARTER_CLUSTER.name, namespace: STARTER_CLUSTER.namespace, description: 'Made by the first `edgeplane server --local-sites` (npm start).' },
      spec: { vsite_refs: STARTER_PLACEMENT },
    });
    // Another server on the same store may have made it meanwhile: that one is as good.
    if (created.status !== 200 && created.status !== 409) throw failed(`creating virtual_k8s ${STARTER_CLUSTER.namespace}/${STARTER_CLUSTER.name}`, created);
    createdCluster = created.status === 200;
    if (createdCluster) logger.info({ virtualK8s: `${STARTER_CLUSTER.namespace}/${STARTER_CLUSTER.name}`, vsiteRefs: STARTER_PLACEMENT }, 'virtual cluster created');
  } else if (found.status !== 200) {
    throw failed(`reading virtual_k8s ${STARTER_CLUSTER.namespace}/${STARTER_CLUSTER.name}`, found);
  }

  const credential = `kubeconfig-${STARTER_CLUSTER.namespace}-${STARTER_CLUSTER.name}-${randomBytes(3).toString('hex')}`;
  const issued = await call('POST', '/api/web/namespaces/system/api_credentials', {
    name: credential,
    namespace: 'system',
    expiration_days: EXPIRATION_DAYS,
    spec: { type: 'KUBE_CONFIG', virtual_k8s_namespace: STARTER_CLUSTER.namespace, virtual_k8s_name: STARTER_CLUSTER.name },
  });
  if (issued.status !== 200) throw failed('issuing a kubeconfig', issued);
  writeFileAtomic(kubeconfig, Buffer.from(issued.json<{ data: string }>().data, 'base64').toString('utf8'), 0o600);
  logger.info({ kubeconfig, credential, expirationDays: EXPIRATION_DAYS }, renew ? 'kubeconfig renewed' : 'kubeconfig written');
  return { outcome: renew ? 'renewed' : 'written', kubeconfig, tokenFile, createdCluster };
}
