import type { PodTemplateSpec } from '../../api/pod-spec-types.js';

/** kube's rand.SafeEncodeString alphabet: no vowels, no lookalikes (so a hash never spells a word). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** JSON with object keys sorted, so equal templates hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** 32-bit FNV-1a of the UTF-8 bytes of `text`. */
function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/**
 * The revision of a StatefulSet's pod template, named as kube names ControllerRevisions:
 * `<statefulset>-<hash>`, the hash being FNV-1a of the template (canonical JSON) written
 * with the safe alphabet, one character per decimal digit. The vK8s serves no
 * ControllerRevisions, so the revision is only this name: pods carry it in their
 * `controller-revision-hash` label and the StatefulSet's status in current/updateRevision.
 * Site-specific changes the platform makes to pods (site env, flavor limits) are not part of
 * the template, so one revision names the same template on every site.
 */
export function templateRevision(statefulSet: string, template: PodTemplateSpec | undefined): string {
  const digits = String(fnv32a(canonicalJson(template ?? {})));
  let encoded = '';
  for (const digit of digits) encoded += SAFE_ALPHABET[digit.charCodeAt(0) % SAFE_ALPHABET.length];
  return `${statefulSet}-${encoded}`;
}
