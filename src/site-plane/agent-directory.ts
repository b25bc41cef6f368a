import type { Logger } from '../observability/logger.js';
import { PrefixCache } from '../store/prefix-cache.js';
import type { KeyValue, Store } from '../store/types.js';
import { agentKey, AGENTS_PREFIX, type AgentRecord } from './site-keys.js';

/** An agent's record with its sites as a set (shared: never mutate). */
export interface KnownAgent {
  readonly name: string;
  readonly record: AgentRecord;
  readonly sites: ReadonlySet<string>;
  /** The record's store revision, for compare-and-swap updates. */
  readonly modRevision: number;
}

/**
 * The agents (`/sites/agents/`), mirrored in memory by list-then-watch: who an agent is,
 * its tenant, its sites and its lease. A record not yet in the mirror (written a moment ago
 * by another server) is read from the store.
 */
export class AgentDirectory {
  private readonly cache: PrefixCache;
  private readonly memo = new WeakMap<KeyValue, KnownAgent>();

  constructor(store: Store, logger?: Logger) {
    this.cache = new PrefixCache(store, AGENTS_PREFIX, logger);
  }

  start(): Promise<void> {
    return this.cache.start();
  }

  stop(): void {
    this.cache.stop();
  }

  /** Applies a write this process made, before its watch event arrives. */
  observe(kv: KeyValue): void {
    this.cache.observe({ kv });
  }

  private known(name: string, kv: KeyValue): KnownAgent {
    let agent = this.memo.get(kv);
    if (agent === undefined) {
      const record = JSON.parse(kv.value) as AgentRecord;
      agent = { name, record, sites: new Set(record.sites), modRevision: kv.modRevision };
      this.memo.set(kv, agent);
    }
    return agent;
  }

  /** The agent from memory, or undefined when the mirror does not have it. */
  cached(name: string): KnownAgent | undefined {
    const found = this.cache.lookup(agentKey(name));
    return found.state === 'present' ? this.known(name, found.kv) : undefined;
  }

  /** The agent from memory, else from the store. */
  async get(name: string): Promise<KnownAgent | undefined> {
    const kv = await this.cache.get(agentKey(name));
    return kv === undefined ? undefined : this.known(name, kv);
  }
}
