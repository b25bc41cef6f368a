/**
 * Kubernetes field selectors (`k8s.io/apimachinery/pkg/fields`): `field=value`, `field==value`
 * or `field!=value`, joined by commas (all must hold). `\` escapes `,`, `=`, `!` and `\` in
 * values. Which fields a kind supports is the kind's business (others → 400).
 */
interface FieldRequirement {
  readonly field: string;
  readonly operator: 'Equals' | 'NotEquals';
  readonly value: string;
}

export type FieldSelector = readonly FieldRequirement[];

export class FieldSelectorError extends Error {
  override readonly name = 'FieldSelectorError';
}

/** Parses a field selector; throws {@link FieldSelectorError} with a message naming the problem. */
export function parseFieldSelector(input: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  if (input.trim() === '') return requirements;
  for (const term of splitUnescaped(input, ',')) {
    const match = /^([^=!\s]+)\s*(==|=|!=)(.*)$/s.exec(term.trim());
    if (match === null) throw new FieldSelectorError(`invalid selector: '${input}'; can't understand '${term}'`);
    const [, field = '', op, raw = ''] = match;
    requirements.push({ field, operator: op === '!=' ? 'NotEquals' : 'Equals', value: unescape(raw.trim(), input) });
  }
  return requirements;
}

function splitUnescaped(input: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i] as string;
    if (c === '\\' && i + 1 < input.length) {
      current += c + (input[i + 1] as string);
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string, input: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const c = value[i] as string;
    if (c === '\\') {
      const next = value[i + 1];
      if (next === undefined || !'\\,=!'.includes(next)) throw new FieldSelectorError(`invalid selector: '${input}': invalid escape sequence in value`);
      out += next;
      i++;
    } else if (c === '=' || c === '!' || c === ',') {
      throw new FieldSelectorError(`invalid selector: '${input}': unescaped '${c}' in value`);
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Whether an object's field values satisfy the selector. `fields` maps each supported field
 * to its value; a requirement on an unsupported field is an error (kube-apiserver: 400).
 */
export function matchesFieldSelector(selector: FieldSelector, fields: Readonly<Record<string, string>>): boolean {
  return selector.every((r) => {
    const value = fields[r.field] ?? '';
    return r.operator === 'Equals' ? value === r.value : value !== r.value;
  });
}

/** The fields a selector uses that the kind does not support, for kube-apiserver's 400 message. */
export function unsupportedFields(selector: FieldSelector, supported: ReadonlySet<string>): string[] {
  return selector.map((r) => r.field).filter((f) => !supported.has(f));
}
