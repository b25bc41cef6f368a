/** A `namespace/name` entry of a placement annotation. */
export interface NamespacedName {
  readonly namespace: string;
  readonly name: string;
}

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/**
 * Parses a placement annotation's value (`svc.io/sites`, `svc.io/virtual-sites`): one
 * `namespace/name`, or several separated by commas; spaces around entries are ignored and
 * repeated entries count once. Entries that are not `namespace/name` (each a DNS label) are
 * reported and skipped; the others are kept. Pure.
 */
export function parseRefList(annotation: string, value: string): { readonly refs: readonly NamespacedName[]; readonly problems: readonly string[] } {
  const refs: NamespacedName[] = [];
  const problems: string[] = [];
  if (value.trim() === '') return { refs, problems: [`annotation ${annotation}: empty value; expected namespace/name[,namespace/name…]`] };
  const seen = new Set<string>();
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    if (entry === '') {
      problems.push(`annotation ${annotation}: empty entry in ${JSON.stringify(value)}`);
      continue;
    }
    const parts = entry.split('/');
    const [namespace, name] = parts;
    if (parts.length !== 2 || namespace === undefined || name === undefined || !LABEL.test(namespace) || !LABEL.test(name)) {
      problems.push(`annotation ${annotation}: ${JSON.stringify(entry)} is not a namespace/name reference`);
      continue;
    }
    if (seen.has(entry)) continue;
    seen.add(entry);
    refs.push({ namespace, name });
  }
  return { refs, problems };
}
