/** The words Pod Security Admission writes its findings with (k8s.io/pod-security-admission's helpers). Pure. */

/** `"a", "b"`: each item quoted, joined by `, ` (inner quotes are not escaped, as upstream). */
export function joinQuote(items: readonly (string | number)[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** `container "a"` or `containers "a", "b"`. */
export function containersWord(names: readonly string[]): string {
  return `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;
}

/** Distinct values, sorted by their bytes (Go's sets.List). */
export function sortedUnique<T extends string | number>(values: readonly T[]): T[] {
  return [...new Set(values)].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
}
