import type { Spec } from './envelope.js';

/**
 * A one-of group: at most one member may be set (`null` counts as not set). When none is,
 * the default member is filled in — the platform fills the default choice of every unset
 * one-of on create — or, without a default, the group is required.
 */
export interface OneOfGroup {
  /** Path of the object holding the members, from the spec; empty for the spec itself. */
  readonly at?: readonly string[];
  readonly members: readonly string[];
  /** The member filled in when none is set, and its value. */
  readonly default?: { readonly member: string; readonly value: () => unknown };
}

/** Pure over a copy: drops null members, fills defaults, and lists the problems. */
export function applyOneOfs(spec: Spec, groups: readonly OneOfGroup[]): { spec: Spec; problems: string[] } {
  const problems: string[] = [];
  for (const group of groups) {
    let container: unknown = spec;
    for (const step of group.at ?? []) container = (container as Record<string, unknown> | undefined)?.[step];
    if (container === null || typeof container !== 'object' || Array.isArray(container)) continue;
    const holder = container as Record<string, unknown>;
    for (const member of group.members) if (holder[member] === null) delete holder[member];
    const chosen = group.members.filter((m) => holder[m] !== undefined);
    const where = ['spec', ...(group.at ?? [])].join('.');
    if (chosen.length > 1) {
      problems.push(`${where}: only one of ${group.members.join(', ')} may be set, found ${chosen.join(' and ')}`);
    } else if (chosen.length === 0) {
      if (group.default !== undefined) holder[group.default.member] = group.default.value();
      else problems.push(`${where}: one of ${group.members.join(', ')} is required`);
    }
  }
  return { spec, problems };
}
