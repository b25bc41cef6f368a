/**
 * How structured-merge-diff (as vendored in kube-apiserver 1.17) prints and orders JSON
 * values: Go's `encoding/json` text for the values inside `k:`/`v:` path elements (HTML-safe
 * escaping included), Go's `%q` for the human-readable paths of conflicts and errors, and
 * the total order of values that sorts field sets.
 */

export const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const GO_JSON_ESCAPES: Readonly<Record<string, string>> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A string as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped too. */
export function goJsonString(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    const simple = GO_JSON_ESCAPES[ch];
    if (simple !== undefined) out += simple;
    else if (code < 0x20 || ch === '<' || ch === '>' || ch === '&' || code === 0x2028 || code === 0x2029) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** A JSON value as Go's encoding/json writes it (maps keep their order). */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goJsonString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isMap(v)) return `{${Object.entries(v).map(([k, x]) => `${goJsonString(k)}:${goJson(x)}`).join(',')}}`;
  return 'null';
}

const GO_QUOTE_ESCAPES: Readonly<Record<string, string>> = { ...GO_JSON_ESCAPES, '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\v': '\\v' };

/** Go's `%q`: printable characters kept, control characters escaped. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    const simple = GO_QUOTE_ESCAPES[ch];
    if (simple !== undefined) out += simple;
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** structured-merge-diff's `Value.String()`: strings quoted, maps as `{k=v;…}`. */
export function goValueString(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return goQuote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(goValueString).join(',')}]`;
  if (isMap(v)) return `{${Object.entries(v).map(([k, x]) => `${k}=${goValueString(x)}`).join(';')}}`;
  return 'null';
}

/** Go's string order (UTF-8 bytes, i.e. code points), not JavaScript's UTF-16 order. */
export function compareGoStrings(a: string, b: string): number {
  if (a === b) return 0;
  const ai = a[Symbol.iterator]();
  const bi = b[Symbol.iterator]();
  for (;;) {
    const x = ai.next();
    const y = bi.next();
    if (x.done === true) return y.done === true ? 0 : -1;
    if (y.done === true) return 1;
    const d = (x.value.codePointAt(0) ?? 0) - (y.value.codePointAt(0) ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

/** The rank of a value's type in structured-merge-diff's order: numbers, strings, booleans, lists, maps, null. */
function rank(v: unknown): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (isMap(v)) return 4;
  return 5;
}

/** The total order structured-merge-diff gives JSON values (used to sort `k:` and `v:` elements). */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' && typeof b === 'number') return a === b ? 0 : a < b ? -1 : 1;
  if (typeof a === 'string' && typeof b === 'string') return compareGoStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) return compareSequences(a.map((x) => ['', x] as const), b.map((x) => ['', x] as const));
  if (isMap(a) && isMap(b)) return compareSequences(sortedEntries(a), sortedEntries(b));
  return 0;
}

const sortedEntries = (m: Record<string, unknown>): Array<readonly [string, unknown]> =>
  Object.entries(m).sort(([x], [y]) => compareGoStrings(x, y));

/** Element-wise comparison of (name, value) sequences; a prefix sorts first. */
export function compareSequences(a: ReadonlyArray<readonly [string, unknown]>, b: ReadonlyArray<readonly [string, unknown]>): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    const [an, av] = a[i] as readonly [string, unknown];
    const [bn, bv] = b[i] as readonly [string, unknown];
    const byName = compareGoStrings(an, bn);
    if (byName !== 0) return byName;
    const byValue = compareValues(av, bv);
    if (byValue !== 0) return byValue;
  }
  return a.length - b.length;
}
