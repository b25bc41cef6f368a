import type { PodTemplateSpec } from '../../api/pod-spec-types.js';

/** The label every ReplicaSet of a Deployment and its pods carry (kube's DefaultDeploymentUniqueLabelKey). */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** kube's rand.SafeEncodeString alphabet: no vowels, no lookalikes. */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * The pod-template-hash of a Deployment's template on one site (kube's ComputeHash, with the
 * site added): FNV-1a (32 bit) over a canonical JSON form of the template — without its own
 * pod-template-hash label, absent and empty fields alike — the site name, and the
 * Deployment's collisionCount when set; the number's ten decimal digits (zero-padded) mapped
 * onto the safe alphabet. Always 10 characters, valid as a label value and a name suffix.
 */
export function podTemplateHash(template: PodTemplateSpec | undefined, site: string, collisionCount?: number): string {
  const input: Record<string, unknown> = { template: withoutHashLabel(template ?? {}), site };
  if (collisionCount !== undefined && collisionCount > 0) input.collisionCount = collisionCount;
  const digits = String(fnv1a32(canonicalJson(input))).padStart(10, '0');
  let encoded = '';
  for (const digit of digits) encoded += SAFE_ALPHABET[digit.charCodeAt(0) % SAFE_ALPHABET.length];
  return encoded;
}

/** The template without the pod-template-hash label (kube's EqualIgnoreHash compares this). */
export function withoutHashLabel(template: PodTemplateSpec): PodTemplateSpec {
  const labels = template.metadata?.labels;
  if (labels == null || !(POD_TEMPLATE_HASH_LABEL in labels)) return template;
  const { [POD_TEMPLATE_HASH_LABEL]: _hash, ...rest } = labels;
  return { ...template, metadata: { ...template.metadata, labels: rest } };
}

/** JSON with sorted keys, and without null, empty arrays and empty objects (Go's nil and empty look alike). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(canonical(value)) ?? 'null';
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? undefined : value.map((v) => canonical(v) ?? null);
  if (typeof value !== 'object' || value === null) return value === null ? undefined : value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const entry = canonical((value as Record<string, unknown>)[key]);
    if (entry !== undefined) out[key] = entry;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** 32-bit FNV-1a over the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
