import { dns1035LabelProblems, dns1123SubdomainProblems, labelValueProblems, qualifiedNameProblems } from '../apimachinery/index.js';
import { ConfigError } from './errors.js';
import type { ObjectMetadata } from './envelope.js';
import type { ConfigKind } from './kinds/index.js';

export interface DecodedBody {
  readonly metadata: ObjectMetadata;
  readonly spec: unknown;
  /** Replace only: the precondition, when given. */
  readonly resourceVersion?: string;
}

const METADATA_FIELDS = new Set(['name', 'namespace', 'labels', 'annotations', 'description', 'disable', 'uid']);
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function stringMap(value: unknown, field: string, keyRule: (k: string) => string[], valueRule?: (v: string) => string[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) throw ConfigError.invalid(`${field}: must be an object of strings`);
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw ConfigError.invalid(`${field}.${k}: must be a string`);
    const problems = [...keyRule(k).map((p) => `key "${k}": ${p}`), ...(valueRule?.(v) ?? []).map((p) => `value "${v}": ${p}`)];
    if (problems.length > 0) throw ConfigError.invalid(`${field}: ${problems.join('; ')}`);
    out[k] = v;
  }
  return out;
}

/**
 * Pure: checks a create or replace body's envelope and metadata (names, labels, annotations,
 * the path's namespace) and returns them; throws InvalidArgument naming the field.
 */
export function decodeObjectBody(
  body: unknown,
  options: { kind: ConfigKind | 'namespace'; namespace: string; mode: 'create' | 'replace' },
): DecodedBody {
  if (!isObject(body)) throw ConfigError.invalid('request body must be a JSON object');
  const allowed = options.mode === 'create' ? ['metadata', 'spec', 'system_metadata'] : ['metadata', 'spec', 'system_metadata', 'resource_version'];
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw ConfigError.invalid(`${key}: unknown field`);
  }
  const raw = body['metadata'];
  if (!isObject(raw)) throw ConfigError.invalid('metadata: is required and must be an object');
  for (const key of Object.keys(raw)) {
    if (!METADATA_FIELDS.has(key)) throw ConfigError.invalid(`metadata.${key}: unknown field`);
  }
  const name = raw['name'];
  if (typeof name !== 'string' || name === '') throw ConfigError.invalid('metadata.name: is required');
  const rule = options.kind === 'namespace' ? 'dns1035' : options.kind.nameRule;
  const nameProblems = rule === 'dns1035' ? dns1035LabelProblems(name) : dns1123SubdomainProblems(name);
  if (nameProblems.length > 0) throw ConfigError.invalid(`metadata.name: "${name}": ${nameProblems.join('; ')}`);
  const namespace = raw['namespace'];
  if (namespace !== undefined && namespace !== null && typeof namespace !== 'string') throw ConfigError.invalid('metadata.namespace: must be a string');
  if (typeof namespace === 'string' && namespace !== '' && namespace !== options.namespace) {
    throw ConfigError.invalid(
      options.namespace === ''
        ? `metadata.namespace: must be empty for a namespace, got "${namespace}"`
        : `metadata.namespace: "${namespace}" does not match the namespace "${options.namespace}" in the path`,
    );
  }
  const description = raw['description'] ?? '';
  if (typeof description !== 'string') throw ConfigError.invalid('metadata.description: must be a string');
  const disable = raw['disable'] ?? false;
  if (typeof disable !== 'boolean') throw ConfigError.invalid('metadata.disable: must be a boolean');
  const labels = stringMap(raw['labels'], 'metadata.labels', qualifiedNameProblems, labelValueProblems);
  const annotations = stringMap(raw['annotations'], 'metadata.annotations', qualifiedNameProblems);
  const annotationBytes = Object.entries(annotations).reduce((n, [k, v]) => n + k.length + v.length, 0);
  if (annotationBytes > MAX_ANNOTATIONS_BYTES) throw ConfigError.invalid(`metadata.annotations: ${annotationBytes} bytes; the limit is ${MAX_ANNOTATIONS_BYTES}`);
  const spec = body['spec'] ?? {};
  if (!isObject(spec)) throw ConfigError.invalid('spec: must be an object');
  const resourceVersion = body['resource_version'];
  if (resourceVersion !== undefined && resourceVersion !== null && resourceVersion !== '' && (typeof resourceVersion !== 'string' || !/^\d+$/.test(resourceVersion))) {
    throw ConfigError.invalid('resource_version: must be a decimal string');
  }
  return {
    metadata: { name, namespace: options.namespace, labels, annotations, description, disable },
    spec,
    ...(typeof resourceVersion === 'string' && resourceVersion !== '' ? { resourceVersion } : {}),
  };
}
