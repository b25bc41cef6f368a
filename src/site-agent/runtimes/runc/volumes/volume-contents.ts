import type { ProjectionSource, Volume } from '../../../../api/pod-spec-types.js';
import { aggregateError, downwardApiFiles } from './downward-api.js';
import { configMapBytes, projectKeys, secretBytes } from './key-projection.js';
import { cleanPayload } from './payload-paths.js';
import { VolumeError } from './volume-error.js';
import { volumeKind } from './volume-kind.js';
import type { VolumeFile, VolumePod, VolumeSources } from './volume-types.js';

interface KeyedSource {
  readonly name?: string;
  readonly items?: Parameters<typeof projectKeys>[1];
  readonly optional?: boolean;
}

async function configMapFiles(pod: VolumePod, source: KeyedSource, defaultMode: number | undefined, sources: VolumeSources): Promise<VolumeFile[]> {
  const name = source.name ?? '';
  const optional = source.optional === true;
  const object = await sources.configMap(pod.metadata.namespace ?? '', name);
  if (object === undefined && !optional) throw new VolumeError(`configmap "${name}" not found`);
  return projectKeys(configMapBytes(object ?? {}), source.items, defaultMode, optional);
}

async function secretFiles(pod: VolumePod, source: KeyedSource, defaultMode: number | undefined, sources: VolumeSources): Promise<VolumeFile[]> {
  const name = source.name ?? '';
  const optional = source.optional === true;
  const object = await sources.secret(pod.metadata.namespace ?? '', name);
  if (object === undefined && !optional) throw new VolumeError(`secret "${name}" not found`);
  return projectKeys(secretBytes(object ?? {}), source.items, defaultMode, optional);
}

function downwardFiles(pod: VolumePod, items: Parameters<typeof downwardApiFiles>[1], defaultMode: number | undefined, sources: VolumeSources): VolumeFile[] {
  const { files, errors } = downwardApiFiles(pod, items, defaultMode, sources.nodeAllocatable);
  const error = aggregateError(errors);
  if (error !== undefined) throw new VolumeError(error.message);
  return files;
}

function projectionFiles(pod: VolumePod, source: ProjectionSource, defaultMode: number | undefined, sources: VolumeSources): Promise<VolumeFile[]> | VolumeFile[] {
  if (source.secret !== undefined) return secretFiles(pod, source.secret, defaultMode, sources);
  if (source.configMap !== undefined) return configMapFiles(pod, source.configMap, defaultMode, sources);
  if (source.downwardAPI !== undefined) return downwardFiles(pod, source.downwardAPI.items, defaultMode, sources);
  if (source.serviceAccountToken !== undefined) {
    throw new VolumeError('serviceAccountToken projections are not supported on this site: it issues no service account tokens (a pod\'s identity is in /svc/secrets/identity, from the workload sidecar)');
  }
  return [];
}

/** kubelet's projected volume: every source in order (a later file replaces an earlier one at the same path); the errors of all sources together. */
async function projectedFiles(pod: VolumePod, volume: Volume, sources: VolumeSources): Promise<VolumeFile[]> {
  const defaultMode = volume.projected?.defaultMode;
  const files: VolumeFile[] = [];
  const errors: Error[] = [];
  for (const source of volume.projected?.sources ?? []) {
    try {
      files.push(...(await projectionFiles(pod, source, defaultMode, sources)));
    } catch (error) {
      errors.push(error as Error);
    }
  }
  const error = aggregateError(errors);
  if (error !== undefined) throw new VolumeError(error.message);
  return files;
}

/**
 * The files a volume holds, as kubelet computes them before writing: configMap and secret keys
 * (honouring `items`, `defaultMode`, per-item `mode` and `optional`), downward API fields and
 * resources, and projected combinations of them. Paths are cleaned and checked, the list sorted.
 * emptyDir and persistentVolumeClaim volumes have no planned contents (`[]`). Throws
 * {@link VolumeError} with kubelet's message (`configmap "x" not found`, `references
 * non-existent secret key: k`, …), which the runtime reports as a FailedMount Event.
 */
export async function volumeContents(pod: VolumePod, volume: Volume, sources: VolumeSources): Promise<VolumeFile[]> {
  switch (volumeKind(volume)) {
    case 'configMap':
      return cleanPayload(await configMapFiles(pod, volume.configMap ?? {}, volume.configMap?.defaultMode, sources));
    case 'secret': {
      const secret = volume.secret ?? {};
      return cleanPayload(await secretFiles(pod, { name: secret.secretName, items: secret.items, optional: secret.optional }, secret.defaultMode, sources));
    }
    case 'downwardAPI':
      return cleanPayload(downwardFiles(pod, volume.downwardAPI?.items, volume.downwardAPI?.defaultMode, sources));
    case 'projected':
      return cleanPayload(await projectedFiles(pod, volume, sources));
    case 'emptyDir':
    case 'persistentVolumeClaim':
      return [];
  }
}
