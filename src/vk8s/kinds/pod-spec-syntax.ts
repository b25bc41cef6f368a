/**
 * The string checks of `k8s.io/apimachinery/pkg/util/validation` that pod specs use and
 * `apimachinery/validation/names.ts` does not have. Each returns the problems (empty when
 * valid), worded like kube-apiserver 1.17.
 */

/** `must be between 1 and 65535, inclusive`. */
export function inclusiveRangeError(min: number, max: number): string {
  return `must be between ${min} and ${max}, inclusive`;
}

/** `must be no more than 15 characters`. */
function maxLenError(length: number): string {
  return `must be no more than ${length} characters`;
}

/** apimachinery's RegexError: the message, examples joined by ` or `, then the pattern. */
function regexError(message: string, pattern: string, ...examples: string[]): string {
  if (examples.length === 0) return `${message} (regex used for validation is '${pattern}')`;
  return `${message} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${pattern}')`;
}

/** A path that would escape a directory: `.`, `..` or a `..` prefix. */
function chDirPrefixProblems(value: string): string[] {
  if (value === '.') return ["must not be '.'"];
  if (value === '..') return ["must not be '..'"];
  if (value.startsWith('..')) return ["must not start with '..'"];
  return [];
}

const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;

/** IsEnvVarName (1.17): letters, digits, `_`, `-`, `.`, not starting with a digit. */
export function envVarNameProblems(value: string): string[] {
  const problems: string[] = [];
  if (!ENV_VAR_NAME.test(value)) {
    problems.push(
      regexError(
        "a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit",
        '[-._a-zA-Z][-._a-zA-Z0-9]*',
        'my.env-name',
        'MY_ENV.NAME',
        'MyEnvName1',
      ),
    );
  }
  return [...problems, ...chDirPrefixProblems(value)];
}

const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

/** IsConfigMapKey: a file name inside a ConfigMap or Secret. */
export function configMapKeyProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 253) problems.push(maxLenError(253));
  if (!CONFIG_MAP_KEY.test(value)) {
    problems.push(regexError("a valid config key must consist of alphanumeric characters, '-', '_' or '.'", '[-._a-zA-Z0-9]+', 'key.name', 'KEY_NAME', 'key-name'));
  }
  return [...problems, ...chDirPrefixProblems(value)];
}

/** IsValidPortName: an IANA_SVC_NAME (≤ 15 characters, lower-case letters, digits, single hyphens). */
export function portNameProblems(value: string): string[] {
  const problems: string[] = [];
  if (value.length > 15) problems.push(maxLenError(15));
  if (!/^[-a-z0-9]+$/.test(value)) problems.push('must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)');
  if (!/[a-z]/.test(value)) problems.push('must contain at least one letter or number (a-z, 0-9)');
  if (value.includes('--')) problems.push('must not contain consecutive hyphens');
  if (value.length > 0 && (value.startsWith('-') || value.endsWith('-'))) problems.push('must not begin or end with a hyphen');
  return problems;
}

/** IsValidPortNum: 1–65535. */
export function portNumberProblems(value: number): string[] {
  return Number.isInteger(value) && value >= 1 && value <= 65535 ? [] : [inclusiveRangeError(1, 65535)];
}

/** IsValidPercent: digits followed by `%`. */
export function percentProblems(value: string): string[] {
  return /^[0-9]+%$/.test(value) ? [] : [regexError("a valid percent string must be a numeric string followed by an ending '%'", '[0-9]+%', '1%', '93%')];
}

/** IsHTTPHeaderName. */
export function httpHeaderNameProblems(value: string): string[] {
  return /^[-A-Za-z0-9]+$/.test(value) ? [] : [regexError("a valid HTTP header must consist of alphanumeric characters or '-'", '[-A-Za-z0-9]+', 'X-Header-Name')];
}

/** IsValidUserID / IsValidGroupID: 0–2147483647. */
export function unixIdProblems(value: number): string[] {
  return Number.isInteger(value) && value >= 0 && value <= 2147483647 ? [] : [inclusiveRangeError(0, 2147483647)];
}

/** Go's net.ParseIP acceptance: a dotted IPv4 address or an IPv6 address. */
export function isIpAddress(value: string): boolean {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(value);
  if (v4 !== null) return v4.slice(1).every((part) => Number(part) <= 255);
  if (!value.includes(':')) return false;
  try {
    new URL(`http://[${value}]/`);
    return true;
  } catch {
    return false;
  }
}
