/** The value at a dotted path in JSON (`containerStatuses.0.state`), or undefined (tests). */
export function jsonAt(value: unknown, path: string): unknown {
  let current = value;
  for (const part of path.split('.')) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The condition of `type` in a pod status (tests). */
export function conditionOf(status: unknown, type: string): Record<string, unknown> {
  const conditions = jsonAt(status, 'conditions');
  const found = Array.isArray(conditions) ? (conditions as Array<Record<string, unknown>>).find((c) => c['type'] === type) : undefined;
  if (found === undefined) throw new Error(`no condition ${type}`);
  return found;
}
