import { labelValueProblems, qualifiedNameProblems } from '../validation/names.js';

/**
 * Kubernetes label selectors (`k8s.io/apimachinery/pkg/labels`): requirements joined by
 * commas, all of which must hold. Operators: `=`, `==`, `!=`, `in (…)`, `notin (…)`,
 * `key` (exists), `!key` (does not exist), `>` and `<` (integer comparison).
 */
type Operator = 'Equals' | 'DoubleEquals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'GreaterThan' | 'LessThan';

export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  readonly values: readonly string[];
}

export type Selector = readonly Requirement[];

export class SelectorParseError extends Error {
  override readonly name = 'SelectorParseError';
}

type Token =
  | { kind: 'word'; text: string }
  | { kind: 'op'; text: '=' | '==' | '!=' | '!' | '>' | '<' }
  | { kind: 'comma' | 'open' | 'close' };

function tokenize(input: string, fail: (reason: string) => never): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i] as string;
    if (/\s/.test(c)) {
      i++;
    } else if (c === ',') {
      tokens.push({ kind: 'comma' });
      i++;
    } else if (c === '(') {
      tokens.push({ kind: 'open' });
      i++;
    } else if (c === ')') {
      tokens.push({ kind: 'close' });
      i++;
    } else if (c === '=' || c === '!' || c === '>' || c === '<') {
      const two = input.slice(i, i + 2);
      if (two === '==' || two === '!=') {
        tokens.push({ kind: 'op', text: two });
        i += 2;
      } else {
        tokens.push({ kind: 'op', text: c });
        i++;
      }
    } else {
      let j = i;
      while (j < input.length && !/[\s,()=!<>]/.test(input[j] as string)) j++;
      tokens.push({ kind: 'word', text: input.slice(i, j) });
      i = j;
    }
  }
  if (tokens.length === 0 && input.trim() !== '') fail('empty selector');
  return tokens;
}

/**
 * Parses a selector. An empty string selects everything. Throws {@link SelectorParseError}
 * with a message like `Cannot parse label selector "a in (b": missing closing parenthesis`.
 */
export function parseSelector(input: string): Selector {
  const fail = (reason: string): never => {
    throw new SelectorParseError(`Cannot parse label selector ${JSON.stringify(input)}: ${reason}`);
  };
  const tokens = tokenize(input, fail);
  const requirements: Requirement[] = [];
  let p = 0;
  const peek = (): Token | undefined => tokens[p];
  const word = (what: string): string => {
    const t = tokens[p++];
    if (t?.kind !== 'word') fail(`expected ${what}${t === undefined ? ' at the end' : ''}`);
    return (t as { text: string }).text;
  };
  const checkKey = (key: string): void => {
    const problems = qualifiedNameProblems(key);
    if (problems.length > 0) fail(`invalid label key "${key}": ${problems.join('; ')}`);
  };
  const checkValue = (value: string): void => {
    const problems = labelValueProblems(value);
    if (problems.length > 0) fail(`invalid label value "${value}": ${problems.join('; ')}`);
  };

  while (p < tokens.length) {
    let t = peek();
    if (t?.kind === 'op' && t.text === '!') {
      p++;
      const key = word('a label key after "!"');
      checkKey(key);
      requirements.push({ key, operator: 'DoesNotExist', values: [] });
    } else {
      const key = word('a label key');
      checkKey(key);
      t = peek();
      if (t === undefined || t.kind === 'comma') {
        requirements.push({ key, operator: 'Exists', values: [] });
      } else if (t.kind === 'op') {
        p++;
        const operator: Operator =
          t.text === '=' ? 'Equals' : t.text === '==' ? 'DoubleEquals' : t.text === '!=' ? 'NotEquals' : t.text === '>' ? 'GreaterThan' : t.text === '<' ? 'LessThan' : fail(`unexpected "!" after "${key}"`);
        const next = peek();
        const value = next?.kind === 'word' ? (p++, next.text) : '';
        if (operator === 'GreaterThan' || operator === 'LessThan') {
          if (!/^-?\d+$/.test(value)) fail(`for '>' and '<' the value must be an integer, got "${value}"`);
        } else {
          checkValue(value);
        }
        requirements.push({ key, operator, values: [value] });
      } else if (t.kind === 'word' && (t.text === 'in' || t.text === 'notin')) {
        p++;
        if (peek()?.kind !== 'open') fail(`expected "(" after "${t.text}"`);
        p++;
        const values: string[] = [];
        for (;;) {
          const v = peek();
          if (v === undefined) fail('missing closing parenthesis');
          if (v?.kind === 'close') {
            p++;
            break;
          }
          if (v?.kind === 'word') {
            checkValue(v.text);
            values.push(v.text);
            p++;
            const after = peek();
            if (after?.kind === 'comma') p++;
            else if (after !== undefined && after.kind !== 'close') fail(`expected "," or ")" after "${v.text}"`);
          } else if (v?.kind === 'comma') {
            values.push('');
            p++;
          } else {
            fail('unexpected token in value list');
          }
        }
        if (values.length === 0) fail(`for '${t.text}' the set of values must not be empty`);
        requirements.push({ key, operator: t.text === 'in' ? 'In' : 'NotIn', values: [...new Set(values)].sort() });
      } else {
        fail(`unexpected "${t.kind === 'word' ? t.text : t.kind}" after "${key}"`);
      }
    }
    const sep = peek();
    if (sep === undefined) break;
    if (sep.kind !== 'comma') fail('requirements must be separated by ","');
    p++;
    if (peek() === undefined) fail('a requirement is missing after the last ","');
  }
  return requirements;
}

/** Whether a set of labels satisfies every requirement. */
export function matchesSelector(selector: Selector, labels: Readonly<Record<string, string>> | undefined): boolean {
  const has = (key: string): boolean => labels !== undefined && Object.prototype.hasOwnProperty.call(labels, key);
  return selector.every((r) => {
    const value = has(r.key) ? labels?.[r.key] : undefined;
    switch (r.operator) {
      case 'Equals':
      case 'DoubleEquals':
      case 'In':
        return value !== undefined && r.values.includes(value);
      case 'NotEquals':
      case 'NotIn':
        return value === undefined || !r.values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      case 'GreaterThan':
      case 'LessThan': {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const a = Number(value);
        const b = Number(r.values[0]);
        return r.operator === 'GreaterThan' ? a > b : a < b;
      }
    }
  });
}

/** Canonical text of a selector, as kube-apiserver prints it. */
export function formatSelector(selector: Selector): string {
  return selector
    .map((r) => {
      switch (r.operator) {
        case 'Equals':
          return `${r.key}=${r.values[0] ?? ''}`;
        case 'DoubleEquals':
          return `${r.key}==${r.values[0] ?? ''}`;
        case 'NotEquals':
          return `${r.key}!=${r.values[0] ?? ''}`;
        case 'In':
          return `${r.key} in (${r.values.join(',')})`;
        case 'NotIn':
          return `${r.key} notin (${r.values.join(',')})`;
        case 'Exists':
          return r.key;
        case 'DoesNotExist':
          return `!${r.key}`;
        case 'GreaterThan':
          return `${r.key}>${r.values[0] ?? ''}`;
        case 'LessThan':
          return `${r.key}<${r.values[0] ?? ''}`;
      }
    })
    .join(',');
}
