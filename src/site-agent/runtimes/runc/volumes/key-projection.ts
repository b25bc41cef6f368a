import type { KeyToPath } from '../../../../api/pod-spec-types.js';
import { VolumeError } from './volume-error.js';
import type { ConfigMapObject, SecretObject, VolumeFile } from './volume-types.js';

/** The mode of files whose volume sets no `defaultMode` (the API server's default). */
export const DEFAULT_FILE_MODE = 0o644;

/** A ConfigMap's or Secret's keys as bytes, with the words kubelet uses for them in errors. */
interface KeyedBytes {
  readonly kind: 'configmap' | 'secret';
  readonly bytes: ReadonlyMap<string, Buffer>;
}

export function configMapBytes(configMap: ConfigMapObject): KeyedBytes {
  const bytes = new Map<string, Buffer>();
  for (const [key, text] of Object.entries(configMap.data ?? {})) bytes.set(key, Buffer.from(text, 'utf8'));
  for (const [key, base64] of Object.entries(configMap.binaryData ?? {})) bytes.set(key, Buffer.from(base64, 'base64'));
  return { kind: 'configmap', bytes };
}

export function secretBytes(secret: SecretObject): KeyedBytes {
  const bytes = new Map<string, Buffer>();
  for (const [key, base64] of Object.entries(secret.data ?? {})) bytes.set(key, Buffer.from(base64, 'base64'));
  return { kind: 'secret', bytes };
}

/**
 * kubelet's `MakePayload` for configMap and secret volumes (and their projections): without
 * `items`, every key becomes a file of that name with `defaultMode`; with `items`, only the
 * listed keys, each at its `path` with its own `mode` or `defaultMode`. A listed key the object
 * lacks is an error unless the source is optional, in which case it is skipped.
 */
export function projectKeys(source: KeyedBytes, items: readonly KeyToPath[] | null | undefined, defaultMode: number | undefined, optional: boolean): VolumeFile[] {
  const mode = defaultMode ?? DEFAULT_FILE_MODE;
  if (items == null || items.length === 0) return [...source.bytes].map(([key, data]) => ({ path: key, data, mode }));
  const files: VolumeFile[] = [];
  for (const item of items) {
    const key = item.key ?? '';
    const data = source.bytes.get(key);
    if (data === undefined) {
      if (optional) continue;
      throw new VolumeError(source.kind === 'configmap' ? `configmap references non-existent config key: ${key}` : `references non-existent secret key: ${key}`);
    }
    files.push({ path: item.path ?? key, data, mode: item.mode ?? mode });
  }
  return files;
}
