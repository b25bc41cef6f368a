import type { KubeObject } from '../../apimachinery/object.js';
import { hasReason, type ObjectWriter } from '../controller-kit/object-writer.js';
import type { Informer } from '../runtime/object-informer.js';
import type { ObjectKey } from '../runtime/object-key.js';
import { claimNameOf, shouldReclaim } from './provisioned-volume.js';

export interface VolumeReclaimerDeps {
  readonly claims: Informer;
  /** The claims' writer: its store is read before a volume is deleted. */
  readonly claimWriter: ObjectWriter;
  readonly volumes: Informer;
  readonly volumeWriter: ObjectWriter;
}

/**
 * One reconcile of one PersistentVolume (kube's PV controller, Delete reclaim policy): a
 * volume the platform provisioned whose claim is gone (or made again with another uid) is
 * deleted, pinned to its uid. The claim is read again from the store first, so a claim the
 * informer has not caught up with is never taken for gone. Sites remove the volume's folder
 * once no claim placed on them holds it (docs/RUNTIME.md).
 */
export function volumeReclaimer(deps: VolumeReclaimerDeps): (key: ObjectKey) => Promise<void> {
  return async (key) => {
    const volume = deps.volumes.get(key.cluster, key.name);
    if (volume === undefined || volume.metadata.deletionTimestamp != null) return;
    const claimName = claimNameOf(volume) ?? '';
    if (!shouldReclaim(volume, deps.claims.get(key.cluster, claimName))) return;
    const claim = await deps.claimWriter.store.get(key.cluster, claimName).catch((error: unknown): KubeObject | undefined => {
      if (hasReason(error, 'NotFound')) return undefined;
      throw error;
    });
    if (!shouldReclaim(volume, claim)) return;
    await deps.volumeWriter.delete(key.cluster, key.name, volume.metadata.uid ?? '');
  };
}
