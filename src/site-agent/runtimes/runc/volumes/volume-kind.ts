import { join } from 'node:path';
import type { Volume } from '../../../../api/pod-spec-types.js';
import { VolumeError } from './volume-error.js';

/** The volume sources a runc site supports. */
export type VolumeKind = 'emptyDir' | 'configMap' | 'secret' | 'downwardAPI' | 'projected' | 'persistentVolumeClaim';

const SUPPORTED: readonly VolumeKind[] = ['emptyDir', 'configMap', 'secret', 'downwardAPI', 'projected', 'persistentVolumeClaim'];

/** kubelet's plugin folder names (`<pod dir>/volumes/kubernetes.io~<plugin>/<volume>`). */
const PLUGIN_DIR: Readonly<Record<Exclude<VolumeKind, 'persistentVolumeClaim'>, string>> = {
  emptyDir: 'kubernetes.io~empty-dir',
  configMap: 'kubernetes.io~configmap',
  secret: 'kubernetes.io~secret',
  downwardAPI: 'kubernetes.io~downward-api',
  projected: 'kubernetes.io~projected',
};

/** The folder under a pod's directory that holds its volumes (what `tearDownPodVolumes` walks). */
export const POD_VOLUMES_DIR = 'volumes';

const sourceFields = (volume: Volume): string[] => Object.keys(volume).filter((key) => key !== 'name' && volume[key] != null);

/**
 * The volume's source, or a {@link VolumeError} naming the source when the site does not
 * support it (hostPath, nfs, iscsi, …: a site offers no host or network storage to pods).
 */
export function volumeKind(volume: Volume): VolumeKind {
  const fields = sourceFields(volume);
  const kind = SUPPORTED.find((candidate) => fields.includes(candidate));
  if (kind !== undefined) return kind;
  const name = volume.name ?? '';
  if (fields.length === 0) return 'emptyDir'; // no source field: an emptyDir, as the API server defaults it
  throw new VolumeError(`volume "${name}": ${fields.join(', ')} volumes are not supported on this site (supported: ${SUPPORTED.join(', ')})`);
}

/** Volumes mounted read-only in every container, whatever the mount says (kubelet's `GetAttributes().ReadOnly`). */
export function alwaysReadOnly(volume: Volume): boolean {
  const kind = volumeKind(volume);
  if (kind === 'persistentVolumeClaim') return volume.persistentVolumeClaim?.readOnly === true;
  return kind !== 'emptyDir';
}

/**
 * Volumes whose files live on a tmpfs mounted at the volume's folder: secrets, and what may
 * carry them (projected, downwardAPI — kubelet backs all three with memory), and emptyDir with
 * `medium: Memory`. Secret bytes therefore never reach a disk.
 */
export function memoryBacked(volume: Volume): boolean {
  const kind = volumeKind(volume);
  if (kind === 'emptyDir') return volume.emptyDir?.medium === 'Memory';
  return kind === 'secret' || kind === 'projected' || kind === 'downwardAPI';
}

/** Where the site keeps its pods' volumes and persistent volumes. */
export interface VolumeLayout {
  /** The pod's own directory (`PodSandboxes.podDir(uid)`). */
  readonly podDir: string;
  /** The site's persistent volume root. */
  readonly pvRoot: string;
  /** The folder under `pvRoot` of the claim a pod names (see claim-folder.ts); throws a VolumeError when there is none yet. */
  readonly claimFolder: (claimName: string) => string;
}

/**
 * The host folder of a pod's volume. Pod-scoped volumes live under the pod, as kubelet lays them
 * out (`<podDir>/volumes/kubernetes.io~secret/<name>`). A persistentVolumeClaim is the site's
 * folder `<pvRoot>/pvc-<claim uid>` (the claim's PersistentVolume names it; the site removes
 * it once the claim is gone: claim-folder-sweep.ts).
 */
export function volumeDir(layout: VolumeLayout, volume: Volume): string {
  const kind = volumeKind(volume);
  const name = volume.name ?? '';
  if (kind === 'persistentVolumeClaim') {
    const claim = volume.persistentVolumeClaim?.claimName ?? '';
    if (!safeSegment(claim)) throw new VolumeError(`volume "${name}": invalid persistentVolumeClaim name "${claim}"`);
    const folder = layout.claimFolder(claim);
    if (!safeSegment(folder)) throw new VolumeError(`volume "${name}": invalid persistentVolumeClaim folder "${folder}"`);
    return join(layout.pvRoot, folder);
  }
  if (!safeSegment(name)) throw new VolumeError(`invalid volume name "${name}"`);
  return join(layout.podDir, POD_VOLUMES_DIR, PLUGIN_DIR[kind], name);
}

/** Whether `segment` is one folder name: not empty, `.` or `..`, without `/` or NUL. */
export const safeSegment = (segment: string): boolean => segment !== '' && segment !== '.' && segment !== '..' && !segment.includes('/') && !segment.includes('\0');
