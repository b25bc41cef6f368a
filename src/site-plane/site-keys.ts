import type { LeaseId } from '../store/types.js';
import type { SiteRuntime, SiteType } from '../site-api/site-model.js';

/**
 * Where the site plane keeps its state in the store, and the records it writes there:
 * - `/sites/tokens/<id>` → {@link TokenRecord} (attached to a lease of the token's TTL);
 * - `/sites/agents/<agent>` → {@link AgentRecord};
 * - `/sites/sites/<site>` → {@link SiteClaim}: the site's name held platform-wide (created
 *   with compare-and-swap, which is what makes site names unique), its owner and its quota;
 * - `/sites/leases/<site>` → {@link SiteLeaseValue}, attached to its agent's store lease:
 *   present while the agent heartbeats;
 * - `/sites/nodes/<owner-tenant>/<site>/<node-name>` → a core/v1 Node, stored like vK8s
 *   objects (JSON without `resourceVersion`; the store's modRevision is its resourceVersion).
 */
const TOKENS_PREFIX = '/sites/tokens/';
export const AGENTS_PREFIX = '/sites/agents/';
export const CLAIMS_PREFIX = '/sites/sites/';
export const LEASES_PREFIX = '/sites/leases/';
export const NODES_PREFIX = '/sites/nodes/';

export const tokenKey = (id: string): string => `${TOKENS_PREFIX}${id}`;
export const agentKey = (agent: string): string => `${AGENTS_PREFIX}${agent}`;
export const claimKey = (site: string): string => `${CLAIMS_PREFIX}${site}`;
export const leaseKey = (site: string): string => `${LEASES_PREFIX}${site}`;
export const siteNodesPrefix = (owner: string, site: string): string => `${NODES_PREFIX}${owner}/${site}/`;
export const nodeKey = (owner: string, site: string, nodeName: string): string => `${siteNodesPrefix(owner, site)}${nodeName}`;
/** Every Node of one owner tenant's sites. */
export const ownerNodesPrefix = (owner: string): string => `${NODES_PREFIX}${owner}/`;

/** The last segment of a key under `prefix` (a site or agent name), or undefined. */
export function nameUnder(prefix: string, key: string): string | undefined {
  if (!key.startsWith(prefix)) return undefined;
  const rest = key.slice(prefix.length);
  return rest === '' || rest.includes('/') ? undefined : rest;
}

/** The site of a Node key (`/sites/nodes/<owner>/<site>/<node>`), or undefined. */
export function siteOfNodeKey(key: string): string | undefined {
  if (!key.startsWith(NODES_PREFIX)) return undefined;
  const parts = key.slice(NODES_PREFIX.length).split('/');
  return parts.length === 3 && parts.every((p) => p !== '') ? parts[1] : undefined;
}

export interface TokenRecord {
  readonly tenant: string;
  /** The only site type sites registered with this token may have. */
  readonly type: SiteType;
  /** Hex SHA-256 of the token's secret: the secret itself is never stored. */
  readonly secret_sha256: string;
  readonly created: string;
  readonly expires: string;
  /** Who issued it (audit). */
  readonly issued_by: string;
  /** Registrations made with it so far. */
  readonly uses?: number;
  /** How many registrations it may make; absent: any number until it expires. */
  readonly max_uses?: number;
  /**
   * Minted for this existing site: a registration with it may move the site to another agent
   * (an agent whose disk was lost, a replaced machine), which no other token can.
   */
  readonly site?: string;
}

export interface AgentRecord {
  readonly tenant: string;
  /** Every site this agent registered (it acts for all of them). */
  readonly sites: readonly string[];
  /** The store lease its sites' lease keys are attached to, once granted. */
  readonly lease?: LeaseId;
  readonly registered: string;
  /** Hex SHA-256 of the agent's public key (SPKI): a registration under this name must prove it holds that key. */
  readonly key_sha256?: string;
}

/** A per-vK8s compute limit on a regional-edge site, in the units the scheduler counts. */
export interface SiteQuota {
  readonly cpuMillis: number;
  readonly memoryBytes: number;
}

export interface SiteClaim {
  readonly tenant: string;
  readonly type: SiteType;
  /** Where the site's config object is: `system` (customer edge) or `svc-io-system`. */
  readonly namespace: string;
  readonly agent: string;
  readonly quota?: SiteQuota;
  /** How the site runs pods, as its last registration said; absent: simulated. */
  readonly runtime?: Exclude<SiteRuntime, 'simulated'>;
}

export interface SiteLeaseValue {
  readonly agent: string;
}
