import type { ValueTransformer } from '../common/envelope-encryption.js';
import type { Spec, StoredObject } from './envelope.js';
import type { ConfigKind } from './kinds/index.js';

/** Where one secret field's stored value is bound: its object's store key and the field's path. */
function fieldContext(storeKey: string, path: readonly string[]): string {
  return `${storeKey}#spec.${path.join('.')}`;
}

/**
 * `spec` with the string at each of the kind's `secretFields` paths that is present replaced
 * by `transform(value, path)`; the rest is shared with `spec`, which is not modified. Pure.
 */
function mapSecretFields(kind: ConfigKind, spec: Spec, transform: (value: string, path: readonly string[]) => string): Spec {
  let result = spec;
  for (const path of kind.secretFields ?? []) result = mapAt(result, path, 0, (value) => transform(value, path));
  return result;
}

function mapAt(node: Record<string, unknown>, path: readonly string[], depth: number, transform: (value: string) => string): Record<string, unknown> {
  const name = path[depth] as string;
  const child = node[name];
  if (depth === path.length - 1) {
    if (typeof child !== 'string') return node;
    const next = transform(child);
    return next === child ? node : { ...node, [name]: next };
  }
  if (child === null || typeof child !== 'object' || Array.isArray(child)) return node;
  const mapped = mapAt(child as Record<string, unknown>, path, depth + 1, transform);
  return mapped === child ? node : { ...node, [name]: mapped };
}

/**
 * The spec as stored: each secret field encrypted under the key-encryption key (envelope
 * encryption, bound to the object's key and the field's path). Other fields stay readable,
 * so every reader of config keys that needs no secret (placement, the site inventory, the
 * janitor, referrer scans) reads the stored JSON as before.
 */
export function sealSecretFields(kind: ConfigKind, storeKey: string, spec: Spec, encryption: ValueTransformer | undefined): Spec {
  if (encryption === undefined) return spec;
  return mapSecretFields(kind, spec, (value, path) => encryption.toStorage(value, fieldContext(storeKey, path)));
}

/** A stored object with its secret fields decrypted (a legacy plaintext field is read as it is). */
export function openSecretFields<T extends StoredObject>(kind: ConfigKind, storeKey: string, object: T, encryption: ValueTransformer | undefined): T {
  if (encryption === undefined || kind.secretFields === undefined) return object;
  const spec = mapSecretFields(kind, object.spec, (value, path) => encryption.fromStorage(value, fieldContext(storeKey, path)));
  return spec === object.spec ? object : { ...object, spec };
}

/**
 * The stored object with every secret field under the current key, or undefined when each
 * one is already (the re-encryption pass).
 */
export function reencryptSecretFields(kind: ConfigKind, storeKey: string, object: StoredObject, encryption: ValueTransformer): StoredObject | undefined {
  const spec = mapSecretFields(kind, object.spec, (value, path) => {
    if (encryption.isCurrent(value)) return value;
    const context = fieldContext(storeKey, path);
    return encryption.toStorage(encryption.fromStorage(value, context), context);
  });
  return spec === object.spec ? undefined : { ...object, spec };
}
