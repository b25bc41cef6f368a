import { defaultFieldRef, defaultResourceFieldRef } from './pod-spec-container-defaults.js';
import { canonicalQuantity } from '../../api/pod-spec-resources.js';
import { asRecord, type DownwardAPIVolumeFile, type Volume } from '../../api/pod-spec-types.js';

/** The volume source fields of core/v1 VolumeSource, in kube's order (validation counts them in this order). */
export const VOLUME_SOURCES = [
  'emptyDir',
  'hostPath',
  'gitRepo',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'flocker',
  'persistentVolumeClaim',
  'rbd',
  'cinder',
  'cephfs',
  'quobyte',
  'downwardAPI',
  'fc',
  'flexVolume',
  'configMap',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'storageos',
  'projected',
  'scaleIO',
  'csi',
] as const;

/** 0644, the default file mode of secret, configMap, downwardAPI and projected volumes. */
const DEFAULT_MODE = 0o644;

/** The source fields a volume sets (present and not null). */
function volumeSourcesOf(volume: Volume): string[] {
  return VOLUME_SOURCES.filter((source) => volume[source] != null);
}

/**
 * core/v1 volume defaulting, in place: a volume without a source becomes `emptyDir: {}`;
 * file-projecting sources get defaultMode 0644; plus the per-source defaults of
 * SetDefaults_* (hostPath type, iSCSI interface, RBD pool/user/keyring, Azure disk, ScaleIO,
 * projected token expiry, downward-API field versions).
 */
export function defaultVolume(volume: Volume): void {
  if (volumeSourcesOf(volume).length === 0) volume.emptyDir = {};
  if (volume.emptyDir?.sizeLimit != null) volume.emptyDir.sizeLimit = canonicalQuantity(volume.emptyDir.sizeLimit);
  if (volume.hostPath != null) volume.hostPath.type ??= '';
  if (volume.secret != null) volume.secret.defaultMode ??= DEFAULT_MODE;
  if (volume.configMap != null) volume.configMap.defaultMode ??= DEFAULT_MODE;
  if (volume.downwardAPI != null) {
    volume.downwardAPI.defaultMode ??= DEFAULT_MODE;
    defaultDownwardFiles(volume.downwardAPI.items);
  }
  if (volume.projected != null) {
    volume.projected.defaultMode ??= DEFAULT_MODE;
    for (const source of volume.projected.sources ?? []) {
      defaultDownwardFiles(source.downwardAPI?.items);
      if (source.serviceAccountToken != null) source.serviceAccountToken.expirationSeconds ??= 3600;
    }
  }
  defaultFields(volume.iscsi, { iscsiInterface: 'default' });
  defaultFields(volume.rbd, { pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
  defaultFields(volume.azureDisk, { cachingMode: 'ReadWrite', kind: 'Shared', fsType: 'ext4', readOnly: false });
  defaultFields(volume.scaleIO, { storageMode: 'ThinProvisioned', fsType: 'xfs' });
}

function defaultDownwardFiles(items: DownwardAPIVolumeFile[] | undefined): void {
  for (const item of items ?? []) {
    if (item.fieldRef != null) defaultFieldRef(item.fieldRef);
    if (item.resourceFieldRef != null) defaultResourceFieldRef(item.resourceFieldRef);
  }
}

/** Sets each default whose field is absent or empty on a source object. */
function defaultFields(source: unknown, defaults: Readonly<Record<string, string | boolean>>): void {
  const record = asRecord(source);
  if (record == null) return;
  for (const [field, value] of Object.entries(defaults)) {
    if (record[field] == null || record[field] === '') record[field] = value;
  }
}
