import { posix } from 'node:path';
import type { Container } from '../../../../api/pod-spec-types.js';
import type { BindMount } from '../oci/index.js';
import type { SubPathMount } from './sub-path.js';
import { VolumeError } from './volume-error.js';
import { alwaysReadOnly } from './volume-kind.js';
import type { VolumePod } from './volume-types.js';

const depth = (path: string): number => path.split('/').length;

/** Binds a subPath mount where runc can bind it from, and returns that source (see SubPathBinds). */
export type SubPathBinder = (mount: SubPathMount) => Promise<string>;

/**
 * The bind mounts of a container's `volumeMounts`, from the host folders its pod's volumes were
 * set up in (`volumeDirs`: volume name → folder). Each is mounted at `mountPath`; read-only when
 * the mount says so, and always for configMap, secret, downwardAPI and projected volumes (and a
 * claim marked `readOnly`), as kubelet does; a `subPath` binds that part of the volume, bound
 * first by `bindSubPath` (by descriptor, at a target of its own: see SubPathBinds). Ordered by the depth of `mountPath`, so a volume mounted inside
 * another one's path lands on top of it, as containerd and CRI-O order them. Throws
 * {@link VolumeError} for a mount the site cannot honour.
 */
export async function containerBinds(
  pod: VolumePod,
  container: Container,
  volumeDirs: ReadonlyMap<string, string>,
  bindSubPath: SubPathBinder,
): Promise<BindMount[]> {
  const containerName = container.name ?? '';
  const binds: BindMount[] = [];
  for (const [index, mount] of (container.volumeMounts ?? []).entries()) {
    const name = mount.name ?? '';
    const volume = (pod.spec?.volumes ?? []).find((candidate) => candidate.name === name);
    const dir = volumeDirs.get(name);
    if (volume === undefined || dir === undefined) throw new VolumeError(`cannot find volume "${name}" to mount into container "${containerName}"`);
    if (mount.subPathExpr !== undefined && mount.subPathExpr !== '') throw new VolumeError(`volumeMount "${name}" of container "${containerName}": subPathExpr is not supported on this site; use subPath`);
    if (mount.mountPropagation !== undefined && mount.mountPropagation !== 'None') {
      throw new VolumeError(`volumeMount "${name}" of container "${containerName}": mountPropagation ${mount.mountPropagation} is not supported on this site (mounts are private to the container)`);
    }
    const mountPath = mount.mountPath ?? '';
    if (mountPath === '') throw new VolumeError(`volumeMount "${name}" of container "${containerName}" has no mountPath`);
    const normal = posix.normalize(posix.isAbsolute(mountPath) ? mountPath : `/${mountPath}`);
    const destination = normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
    const subPath = mount.subPath ?? '';
    const source = subPath === '' ? dir : await bindSubPath({ volumeDir: dir, subPath, volumeName: name, containerName, index });
    binds.push({ source, destination, readOnly: mount.readOnly === true || alwaysReadOnly(volume) });
  }
  // Array.prototype.sort is stable: mounts at the same depth keep the pod's order.
  return binds.sort((a, b) => depth(a.destination) - depth(b.destination));
}
