import { StatusError } from '../apimachinery/errors/status-error.js';
import { Quantity } from '../apimachinery/quantity/quantity.js';
import type { Logger } from '../observability/logger.js';
import type { Clock } from '../common/clock.js';
import { guaranteedUpdate } from '../store/guaranteed-update.js';
import type { Store } from '../store/types.js';
import type { AgentDirectory } from './agent-directory.js';
import { CsrError, type AgentCertificateIssuer } from './agent-certificates.js';
import type { AgentLeases } from './agent-leases.js';
import type { CachedSiteInventory } from './cached-site-inventory.js';
import { forEachLimit } from './for-each-limit.js';
import { parseRegistrationRequest, type SiteRequest } from './registration-request.js';
import type { SiteConfigObjects } from './site-config-objects.js';
import { agentKey, claimKey, type AgentRecord, type SiteClaim, type SiteQuota } from './site-keys.js';
import { siteNamespaceOf } from '../site-api/site-model.js';
import type { SiteNodeStore } from './site-node-store.js';
import type { TokenService } from './token-service.js';
import { metav1Time } from '../apimachinery/meta-time.js';

export interface SiteRegistrarDependencies {
  readonly store: Store;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly tokens: TokenService;
  readonly certificates: AgentCertificateIssuer;
  readonly objects: SiteConfigObjects;
  readonly nodes: SiteNodeStore;
  readonly agents: AgentDirectory;
  readonly inventory: CachedSiteInventory;
  readonly leases: AgentLeases;
  /** The platform CA PEM, returned to the agent. */
  readonly caPem: string;
  /** Sites written at once (default 16). */
  readonly concurrency?: number;
}

export interface RegistrationResult {
  readonly certificate: string;
  readonly ca: string;
  readonly sites: readonly string[];
}

const SITES = { resource: 'sites', group: 'sites.edgeplane.io' };
const AGENTS = { resource: 'agents', group: 'sites.edgeplane.io' };

/** Pure: a regional-edge quota in the units the scheduler counts. */
function quotaOf(site: SiteRequest): SiteQuota | undefined {
  if (site.quota === undefined) return undefined;
  return { cpuMillis: Number(Quantity.parse(site.quota.cpu).milliValue()), memoryBytes: Number(Quantity.parse(site.quota.memory).value()) };
}

/** Pure: the claim a registration makes on a site's name. */
function claimFor(tenant: string, agent: string, site: SiteRequest): SiteClaim {
  const quota = quotaOf(site);
  return { tenant, type: site.type, namespace: siteNamespaceOf(site.type), agent, ...(quota === undefined ? {} : { quota }), ...(site.runtime === 'simulated' ? {} : { runtime: site.runtime }) };
}

/**
 * `POST /api/sites/v1/register`: a registration token and a body of sites become an agent
 * credential and the sites' platform state. In order, so a failure leaves nothing that a
 * retry does not fix: token → body → CSR signed → site names claimed (unique platform-wide:
 * a name held by another tenant or as another type is 409) → agent record (sites merged) →
 * lease keys (a first heartbeat) → site config objects (created or updated; ONLINE) → Nodes.
 * The site's runtime (simulated, runc) is kept in its claim, where the scheduler's inventory
 * reads it, and shown in its Nodes' `containerRuntimeVersion`; a re-registration replaces both.
 */
export class SiteRegistrar {
  constructor(private readonly deps: SiteRegistrarDependencies) {}

  async register(bearerToken: string, body: unknown): Promise<RegistrationResult> {
    const { deps } = this;
    const token = await deps.tokens.verify(bearerToken);
    const request = parseRegistrationRequest(body, token.type);
    const existing = await deps.agents.get(request.agent);
    if (existing !== undefined && existing.record.tenant !== token.tenant) {
      throw StatusError.alreadyExists(AGENTS, request.agent);
    }
    this.checkClaims(token.tenant, request.sites);
    const now = deps.clock.now();
    let issued;
    try {
      issued = await deps.certificates.issue({ csr: request.csr, agent: request.agent, tenant: token.tenant, now });
    } catch (error) {
      if (error instanceof CsrError) throw StatusError.invalid({ kind: 'SiteRegistration', group: SITES.group }, request.agent, [{ reason: 'FieldValueInvalid', field: 'csr', message: error.message }]);
      throw error;
    }
    const concurrency = deps.concurrency ?? 16;
    const previousAgents = new Set<string>();
    await forEachLimit(request.sites, concurrency, async (site) => {
      const before = await this.claim(token.tenant, request.agent, site);
      if (before !== undefined && before !== request.agent) previousAgents.add(before);
    });
    for (const previous of previousAgents) await this.dropSites(previous, new Set(request.sites.map((s) => s.name)));
    await this.recordAgent(request.agent, token.tenant, request.sites.map((s) => s.name), now);
    // Lease keys first: the node lifecycle controller never sees these Nodes without a heartbeat.
    await deps.leases.heartbeat(request.agent, request.sites.map((s) => s.name));
    const stamp = metav1Time(now);
    await forEachLimit(request.sites, concurrency, async (site) => {
      await deps.objects.ensure(token.tenant, site);
      await deps.nodes.replace(token.tenant, site, stamp);
    });
    deps.logger.info({ agent: request.agent, tenant: token.tenant, sites: request.sites.length, serial: issued.serial }, 'site agent registered');
    return { certificate: issued.certificate, ca: deps.caPem, sites: request.sites.map((s) => s.name) };
  }

  /**
   * 409 before anything is written when a site name is held by another tenant or as another
   * type, as far as the claims mirror knows (a claim made elsewhere a moment ago is caught by
   * the compare-and-swap of {@link claim}).
   */
  private checkClaims(tenant: string, sites: readonly SiteRequest[]): void {
    const taken: string[] = [];
    for (const site of sites) {
      const claim = this.deps.inventory.claimOf(site.name);
      if (claim !== undefined && (claim.tenant !== tenant || claim.type !== site.type)) taken.push(site.name);
    }
    if (taken.length === 0) return;
    const shown = taken.slice(0, 10).map((n) => `"${n}"`).join(', ');
    throw new StatusError('AlreadyExists', `site names are unique across the platform: ${shown}${taken.length > 10 ? ` and ${taken.length - 10} more` : ''} ${taken.length === 1 ? 'is' : 'are'} already registered by another tenant or as another site type`, { ...SITES, name: taken[0] ?? '' });
  }

  /** Claims (or re-claims) the site's name; resolves to the agent that held it before, if any. */
  private async claim(tenant: string, agent: string, site: SiteRequest): Promise<string | undefined> {
    const wanted = claimFor(tenant, agent, site);
    let before: string | undefined;
    const kv = await guaranteedUpdate(
      this.deps.store,
      claimKey(site.name),
      (current) => {
        if (current === undefined) return JSON.stringify(wanted);
        const claim = JSON.parse(current.value) as SiteClaim;
        if (claim.tenant !== tenant || claim.type !== site.type) throw StatusError.alreadyExists(SITES, site.name);
        before = claim.agent;
        return JSON.stringify(wanted);
      },
      { allowCreate: true },
    );
    this.deps.inventory.observe('claim', { kv });
    return before;
  }

  /** The agent's record with `sites` added (created at first registration). */
  private async recordAgent(agent: string, tenant: string, sites: readonly string[], now: Date): Promise<void> {
    const kv = await guaranteedUpdate(
      this.deps.store,
      agentKey(agent),
      (current) => {
        const old = current === undefined ? undefined : (JSON.parse(current.value) as AgentRecord);
        if (old !== undefined && old.tenant !== tenant) throw StatusError.alreadyExists(AGENTS, agent);
        const merged = [...new Set([...(old?.sites ?? []), ...sites])];
        const record: AgentRecord = { tenant, sites: merged, ...(old?.lease === undefined ? {} : { lease: old.lease }), registered: now.toISOString() };
        return JSON.stringify(record);
      },
      { allowCreate: true },
    );
    this.deps.agents.observe(kv);
  }

  /** Sites that moved to another agent leave their previous agent's record. */
  private async dropSites(agent: string, moved: ReadonlySet<string>): Promise<void> {
    const kv = await guaranteedUpdate(this.deps.store, agentKey(agent), (current) => {
      const record = JSON.parse(current?.value ?? '{}') as AgentRecord;
      return JSON.stringify({ ...record, sites: record.sites.filter((s) => !moved.has(s)) });
    }).catch(() => undefined);
    if (kv !== undefined) this.deps.agents.observe(kv);
  }
}
