import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS, orDefault } from './kube-defaults.js';
import { accessModesText, quantityText, storageClassText } from './storage-text.js';
import { ageColumn, column, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { PersistentVolumeClaimView, PersistentVolumeView } from './views.js';

const PV_SPEC = 'io.k8s.api.core.v1.PersistentVolumeSpec';
const PV_STATUS = 'io.k8s.api.core.v1.PersistentVolumeStatus';
const PVC_SPEC = 'io.k8s.api.core.v1.PersistentVolumeClaimSpec';
const PVC_STATUS = 'io.k8s.api.core.v1.PersistentVolumeClaimStatus';

/** The phase, or `Terminating` once the object is being deleted. */
const phaseOf = (object: KubeObject, phase: string | undefined): string => (object.metadata.deletionTimestamp != null ? 'Terminating' : orDefault(phase, KUBE_DEFAULTS.volumePhase));

/**
 * PersistentVolumes: Name, Capacity (storage), Access Modes, Reclaim Policy, Status, Claim
 * (`namespace/name`, "" when unbound), StorageClass, Reason, Age, and wide VolumeMode.
 */
export function persistentVolumePrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Capacity', doc(PV_SPEC, 'capacity')),
      column('Access Modes', doc(PV_SPEC, 'accessModes')),
      column('Reclaim Policy', doc(PV_SPEC, 'persistentVolumeReclaimPolicy')),
      column('Status', doc(PV_STATUS, 'phase')),
      column('Claim', doc(PV_SPEC, 'claimRef')),
      column('StorageClass', 'StorageClass of the pv'),
      column('Reason', doc(PV_STATUS, 'reason')),
      ageColumn(doc),
      column('VolumeMode', doc(PV_SPEC, 'volumeMode'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const { metadata, spec, status } = object as PersistentVolumeView;
      const claim = spec?.claimRef;
      return [
        metadata.name ?? '',
        quantityText(spec?.capacity?.['storage']),
        accessModesText(spec?.accessModes),
        orDefault(spec?.persistentVolumeReclaimPolicy, KUBE_DEFAULTS.reclaimPolicy),
        phaseOf(object, status?.phase),
        claim == null ? '' : `${claim.namespace ?? ''}/${claim.name ?? ''}`,
        storageClassText(metadata.annotations, spec?.storageClassName),
        status?.reason ?? '',
        timestampSince(metadata.creationTimestamp, now),
        spec?.volumeMode ?? KUBE_DEFAULTS.volumeMode,
      ];
    },
  };
}

/**
 * PersistentVolumeClaims: Name, Status, Volume, Capacity and Access Modes (from the status,
 * shown only once bound to a volume), StorageClass, Age, and wide VolumeMode. Absent phases,
 * reclaim policy and volume mode read as kube's defaults.
 */
export function persistentVolumeClaimPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Status', doc(PVC_STATUS, 'phase')),
      column('Volume', doc(PVC_SPEC, 'volumeName')),
      column('Capacity', doc(PVC_STATUS, 'capacity')),
      column('Access Modes', doc(PVC_STATUS, 'accessModes')),
      column('StorageClass', 'StorageClass of the pvc'),
      ageColumn(doc),
      column('VolumeMode', doc(PVC_SPEC, 'volumeMode'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const { metadata, spec, status } = object as PersistentVolumeClaimView;
      const volume = spec?.volumeName ?? '';
      const bound = volume !== '';
      return [
        metadata.name ?? '',
        phaseOf(object, status?.phase),
        volume,
        bound ? quantityText(status?.capacity?.['storage']) : '',
        bound ? accessModesText(status?.accessModes) : '',
        storageClassText(metadata.annotations, spec?.storageClassName),
        timestampSince(metadata.creationTimestamp, now),
        spec?.volumeMode ?? KUBE_DEFAULTS.volumeMode,
      ];
    },
  };
}
