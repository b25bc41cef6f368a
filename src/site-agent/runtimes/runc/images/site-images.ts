import { lchown, mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { BindMount, IdRange } from '../oci/index.js';
import { mountContainerRoot, unmountContainerRoot } from './container-root.js';
import { prepareRoot, type HostImagePlan } from './host-image.js';
import type { ImageStore, ResolvedImage } from './image-store.js';
import { shiftedImageRoot } from './shifted-image-root.js';

/** A container instance's root file system, ready for its bundle. */
export interface ContainerRoot {
  readonly rootfs: string;
  /** Read-only binds of the host's programs the root needs (a host-image root), before the container's own. */
  readonly binds: readonly BindMount[];
  /** The overlay over an image, unmounted when the instance goes (none for a host-image root). */
  readonly overlay?: string;
}

/** Gives every entry of a fresh folder tree (nothing is mounted in it yet; links themselves, not what they name) to host id `id`. */
async function ownTree(dir: string, id: number): Promise<void> {
  await lchown(dir, id, id);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) await ownTree(join(dir, entry.name), id);
    else await lchown(join(dir, entry.name), id, id);
  }
}

/**
 * The images a runc site's containers run on (kubelet's image manager and the CRI's
 * snapshots): the site's store of imported images, or — with `--host-image`, for an image the
 * store lacks — a read-only view of the host's programs.
 */
export class SiteImages {
  constructor(
    private readonly store: ImageStore,
    /** Pods whose image the site lacks run on the host's programs (`--host-image`). */
    readonly hostImage: boolean,
    private readonly hostPlan: HostImagePlan,
  ) {}

  /** The image in the site's store, or undefined when it has none of that name. */
  resolve(reference: string): Promise<ResolvedImage | undefined> {
    return this.store.resolve(reference).catch(() => undefined);
  }

  /**
   * Makes the root of a container instance in `instanceDir`: an overlay over `image` (read-only
   * without an upper layer when `readOnly`; in a user namespace over its copy shifted into the range), or without an image an empty root prepared for the
   * host's programs; `mountPoints` are the container's binds (a read-only root needs their
   * mount points made).
   */
  async makeRoot(image: ResolvedImage | undefined, instanceDir: string, readOnly: boolean, mountPoints: readonly BindMount[], userRange?: IdRange):
  Promise<ContainerRoot> {
    if (image !== undefined) {
      // In a user namespace the image's files must be the range's: the overlay goes over the image's shifted copy.
      const lower = userRange === undefined ? image.rootfs : await shiftedImageRoot(image.rootfs, userRange);
      // ...and runc, as the namespace's root, must pass through the instance's folders to it (0711: nothing listed).
      if (userRange !== undefined) await mkdir(instanceDir, { recursive: true, mode: 0o711 });
      const rootfs = await mountContainerRoot(lower, instanceDir, readOnly, mountPoints, userRange !== undefined);
      return { rootfs, binds: [], overlay: rootfs };
    }
    const rootfs = join(instanceDir, 'rootfs');
    await mkdir(rootfs, { recursive: true });
    prepareRoot(rootfs, this.hostPlan, mountPoints);
    // In a user namespace the root's own folders (/, /tmp, /etc, /run…) are the pod's root's, as they are host root's otherwise;
    // the host's programs stay host root's.
    if (userRange !== undefined) await ownTree(rootfs, userRange.hostId);
    return { rootfs, binds: this.hostPlan.binds };
  }

  /** Unmounts an instance's overlay root and removes its writable layer. */
  removeRoot(overlay: string): Promise<void> {
    return unmountContainerRoot(overlay);
  }
}
