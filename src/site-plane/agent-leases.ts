import type { Logger } from '../observability/logger.js';
import { isStoreError } from '../store/errors.js';
import { guaranteedUpdate } from '../store/guaranteed-update.js';
import type { LeaseId, Store } from '../store/types.js';
import type { AgentDirectory } from './agent-directory.js';
import type { CachedSiteInventory } from './cached-site-inventory.js';
import { forEachLimit } from './for-each-limit.js';
import { agentKey, leaseKey, type AgentRecord, type SiteLeaseValue } from './site-keys.js';

export interface AgentLeasesDependencies {
  readonly store: Store;
  readonly agents: AgentDirectory;
  readonly inventory: CachedSiteInventory;
  /** The lease TTL: how long after its last heartbeat a site counts as lost (default 40 s, kube's node grace period). */
  readonly graceSeconds: number;
  readonly logger: Logger;
  /** Lease keys written at once when many must be (default 64). */
  readonly writeConcurrency?: number;
}

/**
 * Heartbeats through store leases: each agent holds one lease (TTL = the grace period), id
 * kept in its record; each of its sites has a key `/sites/leases/<site>` attached to it, so
 * when the agent stops heartbeating every one of its sites' keys disappears at once (one
 * store event per site), which is what the node lifecycle controller watches. A heartbeat
 * keeps the lease alive; once it has expired, the next heartbeat grants a new one and
 * attaches the keys again.
 */
export class AgentLeases {
  constructor(private readonly deps: AgentLeasesDependencies) {}

  get graceSeconds(): number {
    return this.deps.graceSeconds;
  }

  /**
   * Keeps the agent's lease alive (granting a new one when it expired) and makes sure each of
   * `sites` (default: all of the agent's) has its lease key on it. Sites not the agent's are
   * ignored.
   */
  async heartbeat(agent: string, sites?: readonly string[]): Promise<void> {
    const known = await this.deps.agents.get(agent);
    if (known === undefined) return;
    const targets = (sites ?? known.record.sites).filter((site) => known.sites.has(site));
    const renewed = await this.renew(known.record.lease);
    const lease = renewed ?? (await this.regrant(agent, known.record.lease));
    // A live lease already holds the keys this server knows of; write only what is missing.
    const missing = renewed === undefined ? targets : targets.filter((site) => this.deps.inventory.leaseOf(site)?.lease !== lease);
    await this.attach(agent, lease, missing);
  }

  /** The lease kept alive, or undefined when there is none or it expired. */
  private async renew(lease: LeaseId | undefined): Promise<LeaseId | undefined> {
    if (lease === undefined) return undefined;
    try {
      await this.deps.store.keepAliveLease(lease);
      return lease;
    } catch (error) {
      if (isStoreError(error, 'LeaseNotFound')) return undefined;
      throw error;
    }
  }

  private async attach(agent: string, lease: LeaseId, sites: readonly string[]): Promise<void> {
    const value = JSON.stringify({ agent } satisfies SiteLeaseValue);
    try {
      await forEachLimit(sites, this.deps.writeConcurrency ?? 64, async (site) => {
        const kv = await guaranteedUpdate(this.deps.store, leaseKey(site), () => value, { allowCreate: true, lease });
        this.deps.inventory.observe('lease', { kv });
      });
    } catch (error) {
      if (!isStoreError(error, 'LeaseNotFound')) throw error;
      // Expired between grant and attach (a grace shorter than a store round trip): start over.
      await this.attach(agent, await this.regrant(agent, lease), sites);
    }
  }

  /**
   * A new lease recorded in the agent's record with compare-and-swap. When another server
   * recorded a fresh lease first, that one is used and this one revoked.
   */
  private async regrant(agent: string, expired: LeaseId | undefined): Promise<LeaseId> {
    const lease = await this.deps.store.grantLease(this.deps.graceSeconds);
    let winner: LeaseId | undefined;
    const kv = await guaranteedUpdate(this.deps.store, agentKey(agent), (current) => {
      winner = undefined;
      const record = JSON.parse(current?.value ?? '{}') as AgentRecord;
      if (record.lease !== undefined && record.lease !== expired) {
        winner = record.lease;
        return current?.value ?? '';
      }
      return JSON.stringify({ ...record, lease });
    });
    this.deps.agents.observe(kv);
    if (winner === undefined) return lease;
    await this.deps.store.revokeLease(lease).catch(() => undefined);
    try {
      await this.deps.store.keepAliveLease(winner);
      return winner;
    } catch (error) {
      if (!isStoreError(error, 'LeaseNotFound')) throw error;
      return this.regrant(agent, winner);
    }
  }
}
