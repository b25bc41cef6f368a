/** A Content-Type split as Go's `mime.ParseMediaType` does: lower-cased type, parameters. */
export interface MediaType {
  readonly type: string;
  readonly params: Readonly<Record<string, string>>;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Parses `type/subtype; name=value; …` (RFC 2045 tokens and quoted strings), or returns
 * undefined where Go's mime.ParseMediaType fails. Type and parameter names are lower-cased.
 */
export function parseMediaType(header: string): MediaType | undefined {
  const [head = '', ...rest] = splitParams(header);
  const type = head.trim().toLowerCase();
  const slash = type.indexOf('/');
  if (slash < 0) {
    if (!TOKEN.test(type)) return undefined;
  } else if (!TOKEN.test(type.slice(0, slash)) || !TOKEN.test(type.slice(slash + 1))) {
    return undefined;
  }
  const params: Record<string, string> = {};
  for (const part of rest) {
    const param = part.trim();
    if (param === '') continue;
    const eq = param.indexOf('=');
    if (eq <= 0) return undefined;
    const name = param.slice(0, eq).trim().toLowerCase();
    const value = unquote(param.slice(eq + 1).trim());
    if (!TOKEN.test(name) || value === undefined || name in params) return undefined;
    params[name] = value;
  }
  return { type, params };
}

/** Splits on `;` outside quoted strings. */
function splitParams(header: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < header.length; i++) {
    const ch = header.charAt(i);
    if (quoted && ch === '\\') {
      current += ch + header.charAt(i + 1);
      i++;
    } else if (ch === '"') {
      quoted = !quoted;
      current += ch;
    } else if (ch === ';' && !quoted) {
      parts.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  parts.push(current);
  return parts;
}

function unquote(value: string): string | undefined {
  if (TOKEN.test(value)) return value;
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return undefined;
  return value.slice(1, -1).replace(/\\(.)/g, '$1');
}
