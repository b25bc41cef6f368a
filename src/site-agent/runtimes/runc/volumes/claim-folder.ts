import type { KubeObject } from '../../../../apimachinery/object.js';
import { siteVolumeFolder } from '../../../../site-api/site-volume-folder.js';
import { VolumeError } from './volume-error.js';

/** A claim as the site API lists it: the object and those of the agent's sites it is placed on. */
export interface PlacedClaim {
  readonly object: KubeObject;
  readonly sites: readonly string[];
}

/**
 * The folder (under the site's persistent-volume root) of the claim `claimName` a pod of
 * `site` mounts: `pvc-<claim uid>`, the folder its PersistentVolume names. As kubelet, a pod
 * waits for its claim: one that is absent, not placed on this site or not yet Bound is a
 * VolumeError (the pod stays ContainerCreating with a FailedMount Event and tries again).
 */
export function claimFolder(claimName: string, placed: PlacedClaim | undefined, site: string): string {
  if (placed === undefined) throw new VolumeError(`persistentvolumeclaim "${claimName}" not found`);
  if (!placed.sites.includes(site)) throw new VolumeError(`persistentvolumeclaim "${claimName}" is not placed on site "${site}": its volume is on another site`);
  const phase = (placed.object.status as { phase?: string } | undefined)?.phase;
  if (phase !== 'Bound') throw new VolumeError(`persistentvolumeclaim "${claimName}" is not bound (phase "${phase ?? 'Pending'}")`);
  return siteVolumeFolder(placed.object.metadata.uid ?? '');
}
