import type { PersistentVolumeClaimSpec } from '../../vk8s/kinds/core-types.js';
import type { KubeObject } from '../../apimachinery/object.js';

const BIND_COMPLETED_ANNOTATION = 'pv.kubernetes.io/bind-completed';
const BOUND_BY_CONTROLLER_ANNOTATION = 'pv.kubernetes.io/bound-by-controller';

export interface ClaimStatusView {
  phase?: string;
  accessModes?: string[];
  capacity?: Record<string, string | number>;
  [field: string]: unknown;
}

/** The volume a site provides for `claim`: kube's dynamic provisioning name `pvc-<claim uid>`. */
export function volumeNameFor(claim: KubeObject): string {
  const named = ((claim.spec ?? {}) as PersistentVolumeClaimSpec).volumeName ?? '';
  return named !== '' ? named : `pvc-${claim.metadata.uid ?? ''}`;
}

/** Whether the claim is Bound already. */
export function isBound(claim: KubeObject): boolean {
  return ((claim.status ?? {}) as ClaimStatusView).phase === 'Bound';
}

/**
 * The claim as the platform binds it (kube's PV controller after provisioning): spec.volumeName
 * set, bind annotations added; undefined when nothing changes.
 */
export function boundClaim(claim: KubeObject, extraAnnotations: Readonly<Record<string, string>> = {}): KubeObject | undefined {
  const spec = (claim.spec ?? {}) as PersistentVolumeClaimSpec;
  const volumeName = volumeNameFor(claim);
  const annotations = { ...claim.metadata.annotations, [BIND_COMPLETED_ANNOTATION]: 'yes', [BOUND_BY_CONTROLLER_ANNOTATION]: 'yes', ...extraAnnotations };
  const same = spec.volumeName === volumeName && Object.entries(annotations).every(([k, v]) => claim.metadata.annotations?.[k] === v);
  if (same) return undefined;
  return { ...claim, metadata: { ...claim.metadata, annotations }, spec: { ...spec, volumeName } };
}

/** A Bound claim's status: the access modes it asked for, and capacity equal to its storage request. */
export function boundStatus(claim: KubeObject): ClaimStatusView {
  const spec = (claim.spec ?? {}) as PersistentVolumeClaimSpec;
  const storage = spec.resources?.requests?.storage;
  return {
    ...((claim.status ?? {}) as ClaimStatusView),
    phase: 'Bound',
    ...(spec.accessModes === undefined ? {} : { accessModes: [...spec.accessModes] }),
    ...(storage === undefined ? {} : { capacity: { storage } }),
  };
}
