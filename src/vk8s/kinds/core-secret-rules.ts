import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { immutable } from '../../apimachinery/validation/object-meta.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { configMapKeyProblems, MAX_SECRET_SIZE } from './core-fields.js';
import { stringMap } from './core-types.js';

/**
 * Secret defaulting and validation as kube-apiserver 1.17 (`SetDefaults_Secret`, the v1
 * conversion that merges `stringData`, `ValidateSecret`, `ValidateSecretUpdate`). `data`
 * values are base64 text (their syntax is checked when the body is decoded); sizes and
 * contents are judged on the decoded bytes.
 */

const REDACTED = '<secret contents redacted>';

export function secretType(object: KubeObject): string {
  return typeof object.type === 'string' ? object.type : '';
}

/** Type Opaque when unset; every `stringData` entry overwrites `data` (base64-encoded), then `stringData` goes. */
export function defaultSecret(object: KubeObject): void {
  if (secretType(object) === '') object.type = 'Opaque';
  const stringData = stringMap(object.stringData);
  if (Object.keys(stringData).length > 0) {
    const data = { ...stringMap(object.data) };
    for (const [key, value] of Object.entries(stringData)) data[key] = Buffer.from(value, 'utf8').toString('base64');
    object.data = data;
  }
  delete object.stringData;
}

/** ValidateSecret without the ObjectMeta part. */
export function validateSecret(object: KubeObject): StatusCause[] {
  const data = decodedData(object);
  const causes: StatusCause[] = [];
  let size = 0;
  for (const [key, bytes] of data) {
    for (const p of configMapKeyProblems(key)) causes.push(fieldError.invalid(`data[${key}]`, key, p));
    size += bytes.length;
  }
  if (size > MAX_SECRET_SIZE) causes.push(fieldError.tooLong('data', MAX_SECRET_SIZE));
  return [...causes, ...typeRules(object, data)];
}

/** ValidateSecretUpdate without the ObjectMeta part: the type is immutable. */
export function validateSecretUpdate(object: KubeObject, old: KubeObject): StatusCause[] {
  if (secretType(object) === '') object.type = secretType(old);
  return [...immutable('type', secretType(object), secretType(old)), ...validateSecret(object)];
}

function typeRules(object: KubeObject, data: ReadonlyMap<string, Buffer>): StatusCause[] {
  switch (secretType(object)) {
    case 'kubernetes.io/service-account-token': {
      const name = object.metadata.annotations?.['kubernetes.io/service-account.name'] ?? '';
      return name === '' ? [fieldError.required('metadata.annotations[kubernetes.io/service-account.name]')] : [];
    }
    case 'kubernetes.io/dockercfg':
      return jsonRules(data, '.dockercfg');
    case 'kubernetes.io/dockerconfigjson':
      return jsonRules(data, '.dockerconfigjson');
    case 'kubernetes.io/basic-auth':
      // kube 1.17 names these paths with a literal "data[%s]".
      if (!data.has('username') && !data.has('password')) return [fieldError.required('data[%s][username]'), fieldError.required('data[%s][password]')];
      return [];
    case 'kubernetes.io/ssh-auth':
      return (data.get('ssh-privatekey')?.length ?? 0) === 0 ? [fieldError.required('data[%s][ssh-privatekey]')] : [];
    case 'kubernetes.io/tls':
      return ['tls.crt', 'tls.key'].filter((key) => !data.has(key)).map((key) => fieldError.required(`data[${key}]`));
    default:
      return [];
  }
}

function jsonRules(data: ReadonlyMap<string, Buffer>, key: string): StatusCause[] {
  const bytes = data.get(key);
  if (bytes === undefined) return [fieldError.required(`data[${key}]`)];
  const problem = goJsonObjectError(bytes.toString('utf8'));
  return problem === undefined ? [] : [fieldError.invalid(`data[${key}]`, REDACTED, problem)];
}

function decodedData(object: KubeObject): Map<string, Buffer> {
  return new Map(Object.entries(stringMap(object.data)).map(([key, value]) => [key, Buffer.from(typeof value === 'string' ? value : '', 'base64')]));
}

/**
 * What Go's `json.Unmarshal` into a `map[string]interface{}` says about `text`, or undefined
 * when it accepts it (an object or `null`). Syntax errors are worded like Go's for the common
 * cases (empty or truncated input, a bad first character).
 */
export function goJsonObjectError(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return 'unexpected end of JSON input';
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    const first = trimmed[0] ?? '';
    if (!/[{["\-0-9tfn]/.test(first)) return `invalid character '${first}' looking for beginning of value`;
    const literal = ['true', 'false', 'null'].find((word) => word.startsWith(first)) ?? '';
    for (let i = 1; i < literal.length && /[a-z]/.test(first); i++) {
      const c = trimmed[i];
      if (c === undefined) break;
      if (c !== literal[i]) return `invalid character '${c}' in literal ${literal} (expecting '${literal[i]}')`;
    }
    return 'unexpected end of JSON input';
  }
  if (value === null || (typeof value === 'object' && !Array.isArray(value))) return undefined;
  const goType = Array.isArray(value) ? 'array' : typeof value === 'boolean' ? 'bool' : typeof value;
  return `json: cannot unmarshal ${goType} into Go value of type map[string]interface {}`;
}
