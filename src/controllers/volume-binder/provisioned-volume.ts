import type { KubeObject } from '../../apimachinery/object.js';
import type { ObjectReference, PersistentVolumeClaimSpec, PersistentVolumeSpec } from '../../vk8s/kinds/core-types.js';
import { SITE_NAME_LABEL } from '../../site-api/site-model.js';
import { siteVolumeFolder } from '../../site-api/site-volume-folder.js';

/** The provisioner the platform's volumes name in `pv.kubernetes.io/provisioned-by` (docs/RUNTIME.md). */
const SITE_LOCAL_PROVISIONER = 'edgeplane.io/site-local';
const PROVISIONED_BY_ANNOTATION = 'pv.kubernetes.io/provisioned-by';

/** The reference kube's provisioner puts in a volume's claimRef (the claim as it was when provisioned). */
function claimReference(claim: KubeObject): ObjectReference {
  return {
    kind: 'PersistentVolumeClaim',
    namespace: claim.metadata.namespace ?? '',
    name: claim.metadata.name ?? '',
    uid: claim.metadata.uid ?? '',
    apiVersion: 'v1',
    ...(claim.metadata.resourceVersion === undefined ? {} : { resourceVersion: claim.metadata.resourceVersion }),
  };
}

/**
 * The PersistentVolume `name` the platform provisions for `claim` on `sites` (dynamic
 * provisioning, as kube's PV controller with a local provisioner): the claim's storage request
 * as capacity, its access modes, volume mode and storage class, claimRef, reclaim policy
 * Delete, a `local` source (the folder under the site's volume root) and a node affinity
 * selecting the nodes of those sites (label `svc.io/siteName`: a site's nodes share its folder).
 */
export function provisionedVolume(claim: KubeObject, name: string, sites: readonly string[]): KubeObject {
  const spec = (claim.spec ?? {}) as PersistentVolumeClaimSpec;
  const storage = spec.resources?.requests?.storage;
  const volume: PersistentVolumeSpec = {
    ...(storage === undefined ? {} : { capacity: { storage } }),
    accessModes: [...(spec.accessModes ?? [])],
    claimRef: claimReference(claim),
    persistentVolumeReclaimPolicy: 'Delete',
    ...(spec.storageClassName == null || spec.storageClassName === '' ? {} : { storageClassName: spec.storageClassName }),
    volumeMode: spec.volumeMode ?? 'Filesystem',
    local: { path: `/persistent-volumes/${siteVolumeFolder(claim.metadata.uid ?? '')}` },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: SITE_NAME_LABEL, operator: 'In', values: [...sites].sort() }] }] } },
  };
  return { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name, annotations: { [PROVISIONED_BY_ANNOTATION]: SITE_LOCAL_PROVISIONER } }, spec: volume };
}

/** Whether the platform provisioned `volume` (only those does it bind and delete). */
function isProvisioned(volume: KubeObject): boolean {
  return volume.metadata.annotations?.[PROVISIONED_BY_ANNOTATION] === SITE_LOCAL_PROVISIONER;
}

/** The uid of the claim `volume` is for. */
export function claimUidOf(volume: KubeObject): string | undefined {
  return ((volume.spec ?? {}) as PersistentVolumeSpec).claimRef?.uid;
}

/** The claim's name in the volume's claimRef. */
export function claimNameOf(volume: KubeObject): string | undefined {
  return ((volume.spec ?? {}) as PersistentVolumeSpec).claimRef?.name;
}

/** The volume with status Bound; undefined when it is already. */
export function boundVolume(volume: KubeObject): KubeObject | undefined {
  const status = (volume.status ?? {}) as { phase?: string };
  return status.phase === 'Bound' ? undefined : { ...volume, status: { ...status, phase: 'Bound' } };
}

/**
 * Delete reclaim policy: a provisioned volume whose claim is gone — no claim of that name, or
 * one with another uid (deleted and made again) — is deleted.
 */
export function shouldReclaim(volume: KubeObject, claim: KubeObject | undefined): boolean {
  if (!isProvisioned(volume) || ((volume.spec ?? {}) as PersistentVolumeSpec).persistentVolumeReclaimPolicy !== 'Delete') return false;
  return claim === undefined || claim.metadata.uid !== claimUidOf(volume);
}
