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

/** 409: a site stays with its agent; moving it needs a token minted for it. */
function moveRefused(site: string, holder: string, agent: string, state: string | undefined): StatusError {
  const shown = state === undefined ? '' : ` (${state.toLowerCase()})`;
  return new StatusError(
    'AlreadyExists',
    `site "${site}" is registered by agent "${holder}"${shown}: a registration never moves a site to another agent ("${agent}"); decommission the site, or move it with a token minted for it (edgeplane site token --for-site ${site})`,
    { ...SITES, name: site },
  );
}

/**
 * 409 when `agent` exists and the registration's key is not the one it registered with: an
 * agent's name, like its sites, stays with the key that holds it (a registration's CSR proves
 * the key); a token minted for one of its sites replaces it (a machine whose disk was lost).
 */
function checkAgentKey(agent: string, record: AgentRecord | undefined, keySha256: string, tokenSite: string | undefined): void {
  if (record?.key_sha256 === undefined || record.key_sha256 === keySha256) return;
  if (tokenSite !== undefined && record.sites.includes(tokenSite)) return;
  throw new StatusError(
    'AlreadyExists',
    `agent "${agent}" is registered with another key: registering it again needs that key (the agent's stored credential), or a token minted for one of its sites (edgeplane site token --for-site ${record.sites[0] ?? '<site>'})`,
    { ...AGENTS, name: agent },
  );
}

/**
 * `POST /api/sites/v1/register`: a registration token and a body of sites become an agent
 * credential and the sites' platform state. In order, so a failure leaves nothing that a
 * retry does not fix: token → body → CSR signed → the agent's key and the sites' agents checked
 * (a registration never takes an agent's name or a site from another key or agent: 409; only a
 * token minted for the site moves it) → a use of the token counted → site names claimed (unique
 * platform-wide: a name held by another tenant or as another type is 409) → agent record (sites merged, key) →
 * lease keys (a first heartbeat) → site config objects (created or updated; ONLINE) → Nodes.
 * The site's runtime (simulated, runc) is kept in its claim, where the scheduler's inventory
 * reads it, and shown in its Nodes' `containerRuntimeVersion`; a re-registration replaces both.
 */
export class SiteRegistrar {
  constructor(private readonly deps: SiteRegistrarDependencies) {}

  /** The claim on a site's name (its tenant, type and agent), if the site exists. */
  claimOf(site: string): SiteClaim | undefined {
    return this.deps.inventory.claimOf(site);
  }

  async register(bearerToken: string, body: unknown): Promise<RegistrationResult> {
    const { deps } = this;
    const checked = await deps.tokens.verify(bearerToken);
    const request = parseRegistrationRequest(body, checked.type);
    const now = deps.clock.now();
    let issued;
    try {
      issued = await deps.certificates.issue({ csr: request.csr, agent: request.agent, tenant: checked.tenant, now });
    } catch (error) {
      if (error instanceof CsrError) throw StatusError.invalid({ kind: 'SiteRegistration', group: SITES.group }, request.agent, [{ reason: 'FieldValueInvalid', field: 'csr', message: error.message }]);
      throw error;
    }
    const existing = await deps.agents.get(request.agent);
    if (existing !== undefined && existing.record.tenant !== checked.tenant) throw StatusError.alreadyExists(AGENTS, request.agent);
    checkAgentKey(request.agent, existing?.record, issued.keySha256, checked.site);
    this.checkClaims(checked.tenant, request.agent, request.sites, checked.site);
    // Counted once the registration is known to be one the token may make.
    const token = await deps.tokens.use(bearerToken);
    const concurrency = deps.concurrency ?? 16;
    const previousAgents = new Set<string>();
    await forEachLimit(request.sites, concurrency, async (site) => {
      const before = await this.claim(token.tenant, request.agent, site, token.site);
      if (before !== undefined && before !== request.agent) {
        previousAgents.add(before);
        deps.logger.warn({ site: site.name, from: before, to: request.agent, token: token.id, issuedBy: token.issued_by }, 'site moved to another agent with a token minted for it');
      }
    });
    for (const previous of previousAgents) await this.dropSites(previous, new Set(request.sites.map((s) => s.name)));
    await this.recordAgent(request.agent, token.tenant, request.sites.map((s) => s.name), now, issued.keySha256);
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
   * type, or by another agent (a site never moves to a new agent, unless the token was minted
   * for that site), as far as the claims mirror knows; a claim made elsewhere a moment ago is
   * caught by the compare-and-swap of {@link claim}.
   */
  private checkClaims(tenant: string, agent: string, sites: readonly SiteRequest[], tokenSite: string | undefined): void {
    const taken: string[] = [];
    for (const site of sites) {
      const claim = this.deps.inventory.claimOf(site.name);
      if (claim !== undefined && (claim.tenant !== tenant || claim.type !== site.type)) taken.push(site.name);
    }
    if (taken.length > 0) {
      const shown = taken.slice(0, 10).map((n) => `"${n}"`).join(', ');
      throw new StatusError('AlreadyExists', `site names are unique across the platform: ${shown}${taken.length > 10 ? ` and ${taken.length - 10} more` : ''} ${taken.length === 1 ? 'is' : 'are'} already registered by another tenant or as another site type`, { ...SITES, name: taken[0] ?? '' });
    }
    for (const site of sites) {
      const claim = this.deps.inventory.claimOf(site.name);
      if (claim === undefined || claim.agent === agent || tokenSite === site.name) continue;
      throw moveRefused(site.name, claim.agent, agent, this.deps.inventory.stateOf(site.name));
    }
  }

  /** Claims (or re-claims) the site's name; resolves to the agent that held it before, if any. */
  private async claim(tenant: string, agent: string, site: SiteRequest, tokenSite: string | undefined): Promise<string | undefined> {
    const wanted = claimFor(tenant, agent, site);
    let before: string | undefined;
    const kv = await guaranteedUpdate(
      this.deps.store,
      claimKey(site.name),
      (current) => {
        if (current === undefined) return JSON.stringify(wanted);
        const claim = JSON.parse(current.value) as SiteClaim;
        if (claim.tenant !== tenant || claim.type !== site.type) throw StatusError.alreadyExists(SITES, site.name);
        if (claim.agent !== agent && tokenSite !== site.name) throw moveRefused(site.name, claim.agent, agent, this.deps.inventory.stateOf(site.name));
        before = claim.agent;
        return JSON.stringify(wanted);
      },
      { allowCreate: true },
    );
    this.deps.inventory.observe('claim', { kv });
    return before;
  }

  /** The agent's record with `sites` added (created at first registration). */
  private async recordAgent(agent: string, tenant: string, sites: readonly string[], now: Date, keySha256: string): Promise<void> {
    const kv = await guaranteedUpdate(
      this.deps.store,
      agentKey(agent),
      (current) => {
        const old = current === undefined ? undefined : (JSON.parse(current.value) as AgentRecord);
        if (old !== undefined && old.tenant !== tenant) throw StatusError.alreadyExists(AGENTS, agent);
        const merged = [...new Set([...(old?.sites ?? []), ...sites])];
        const lease = old?.lease === undefined ? {} : { lease: old.lease };
        const record: AgentRecord = { tenant, sites: merged, ...lease, registered: now.toISOString(), key_sha256: keySha256 };
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
