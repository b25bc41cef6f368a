import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { hasReason, type ObjectWriter } from '../controller-kit/object-writer.js';
import type { Informer } from '../runtime/object-informer.js';
import { boundVolume, claimUidOf, provisionedVolume } from './provisioned-volume.js';

export interface VolumeProvisioningDeps {
  readonly volumes: Informer;
  readonly volumeWriter: ObjectWriter;
}

/**
 * Makes sure the PersistentVolume `name` of `claim` exists, Bound (idempotent: an existing
 * volume of this claim is kept as it is, its node affinity being immutable). `taken` when a
 * volume of that name belongs to another claim.
 */
export async function ensureVolume(deps: VolumeProvisioningDeps, cluster: ClusterRef, claim: KubeObject, name: string, sites: readonly string[]): Promise<'ready' | 'taken'> {
  let volume = deps.volumes.get(cluster, name);
  if (volume === undefined) {
    try {
      volume = await deps.volumeWriter.create(cluster, provisionedVolume(claim, name, sites));
    } catch (error) {
      if (!hasReason(error, 'AlreadyExists')) throw error;
      volume = await deps.volumeWriter.store.get(cluster, name);
    }
  }
  if (claimUidOf(volume) !== claim.metadata.uid) return 'taken';
  const written = await deps.volumeWriter.update(cluster, name, volume.metadata.uid ?? '', boundVolume, 'status');
  if (written === 'gone') throw new Error(`persistent volume ${name} was deleted while it was bound; retrying`);
  return 'ready';
}
