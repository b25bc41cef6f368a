import type { NftJsonItem } from '../../../host/index.js';
import { DROP_REASONS, SITE_DROP_REASONS, type DropReason } from './firewall-model.js';
import { FIREWALL_TABLE, type FirewallFamily, type NftTable } from './firewall-ruleset.js';

/** The names of what a table holds now. */
export interface TableObjects {
  readonly chains: ReadonlySet<string>;
  readonly sets: ReadonlySet<string>;
  readonly counters: ReadonlySet<string>;
}

const NONE: TableObjects = { chains: new Set(), sets: new Set(), counters: new Set() };

/** The objects of the site's tables in a namespace's ruleset (`nft -j list ruleset`), by family. */
export function existingObjects(items: readonly NftJsonItem[]): ReadonlyMap<FirewallFamily, TableObjects> {
  const found = new Map<FirewallFamily, { chains: Set<string>; sets: Set<string>; counters: Set<string> }>();
  const of = (family: FirewallFamily): { chains: Set<string>; sets: Set<string>; counters: Set<string> } => {
    const known = found.get(family) ?? { chains: new Set<string>(), sets: new Set<string>(), counters: new Set<string>() };
    found.set(family, known);
    return known;
  };
  for (const item of items) {
    for (const [kind, value] of Object.entries(item)) {
      const { family, table, name } = value as { family?: unknown; table?: unknown; name?: unknown };
      if ((family !== 'bridge' && family !== 'inet') || table !== FIREWALL_TABLE || typeof name !== 'string') continue;
      if (kind === 'chain') of(family).chains.add(name);
      else if (kind === 'set' || kind === 'map') of(family).sets.add(name);
      else if (kind === 'counter') of(family).counters.add(name);
    }
  }
  return found;
}

/**
 * One `nft -f` transaction that makes the site's tables exactly `tables`, whatever they hold
 * now (`existing`): the tables are made if absent and their rules flushed; counters are added
 * (an existing counter keeps its count), sets refilled, chains added and their rules written;
 * then every chain, set and counter no longer wanted is deleted. nftables applies it all or
 * nothing, so packets never see a half-written filter.
 */
export function firewallScript(tables: readonly NftTable[], existing: ReadonlyMap<FirewallFamily, TableObjects>): string {
  const lines: string[] = [];
  for (const { family } of tables) lines.push(`add table ${family} ${FIREWALL_TABLE}`, `flush table ${family} ${FIREWALL_TABLE}`);
  for (const table of tables) {
    const at = `${table.family} ${FIREWALL_TABLE}`;
    for (const counter of table.counters) lines.push(`add counter ${at} ${counter}`);
    for (const set of table.sets) {
      lines.push(`add set ${at} ${set.name} { type ${set.type}; }`, `flush set ${at} ${set.name}`);
      if (set.elements.length > 0) lines.push(`add element ${at} ${set.name} { ${set.elements.join(', ')} }`);
    }
    for (const chain of table.chains) lines.push(chain.base === undefined ? `add chain ${at} ${chain.name}` : `add chain ${at} ${chain.name} { ${chain.base} }`);
    for (const chain of table.chains) for (const rule of chain.rules) lines.push(`add rule ${at} ${chain.name} ${rule}`);
  }
  for (const table of tables) {
    const at = `${table.family} ${FIREWALL_TABLE}`;
    const now = existing.get(table.family) ?? NONE;
    const wanted = { chains: new Set(table.chains.map((c) => c.name)), sets: new Set(table.sets.map((s) => s.name)), counters: new Set(table.counters) };
    for (const chain of [...now.chains].filter((name) => !wanted.chains.has(name)).sort()) lines.push(`delete chain ${at} ${chain}`);
    for (const set of [...now.sets].filter((name) => !wanted.sets.has(name)).sort()) lines.push(`delete set ${at} ${set}`);
    for (const counter of [...now.counters].filter((name) => !wanted.counters.has(name)).sort()) lines.push(`delete counter ${at} ${counter}`);
  }
  return lines.map((line) => `${line}\n`).join('');
}

/** One drop counter: a pod's (by its port) or the site's (`veth` undefined), summed over both tables. */
export interface DropCount {
  readonly veth?: string;
  readonly reason: DropReason | (typeof SITE_DROP_REASONS)[number];
  readonly packets: number;
}

/** The drop counters of the site's tables, summed per port and reason (`isolated` is counted in both tables). */
export function dropCounts(items: readonly NftJsonItem[]): DropCount[] {
  const sums = new Map<string, DropCount>();
  for (const item of items) {
    const counter = item['counter'] as { table?: unknown; name?: unknown; packets?: unknown } | undefined;
    if (counter === undefined || counter.table !== FIREWALL_TABLE || typeof counter.name !== 'string' || typeof counter.packets !== 'number') continue;
    const name = counter.name;
    const site = SITE_DROP_REASONS.find((reason) => reason === name);
    const split = name.indexOf('_');
    const reason = site ?? DROP_REASONS.find((r) => r === name.slice(split + 1));
    if (reason === undefined) continue;
    const veth = site === undefined ? name.slice(0, split) : undefined;
    const key = `${veth ?? ''}\0${reason}`;
    sums.set(key, { ...(veth === undefined ? {} : { veth }), reason, packets: (sums.get(key)?.packets ?? 0) + counter.packets });
  }
  return [...sums.values()];
}
