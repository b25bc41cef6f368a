import { validateLabelSelector } from './workload-labels.js';
import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { FIELD_IMMUTABLE, immutable } from '../../apimachinery/validation/object-meta.js';
import { jsonEqual, type KubeObject } from '../../apimachinery/object.js';
import type { Quantity } from '../../apimachinery/quantity/quantity.js';
import { quantityOf, validateBasicResource, validateDns1123Subdomain, validateNonNegativeQuantity, validatePositiveQuantity } from './core-fields.js';
import { ensure, view, type IntOrString, type PersistentVolumeClaimSpec, type PersistentVolumeSpec } from './core-types.js';

/**
 * PersistentVolumeClaim and PersistentVolume defaulting and validation as kube-apiserver 1.17
 * (ExpandPersistentVolumes and BlockVolume on, as they are by default).
 */

const ACCESS_MODES: readonly string[] = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce'];
const VOLUME_MODES: readonly string[] = ['Block', 'Filesystem'];
const RECLAIM_POLICIES: readonly string[] = ['Delete', 'Recycle', 'Retain'];
const DATA_SOURCE_KINDS: readonly string[] = ['PersistentVolumeClaim', 'VolumeSnapshot.snapshot.storage.k8s.io'];
const STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
/** The volume sources of a PersistentVolumeSpec, in the order kube checks them. */
const PV_SOURCES: readonly string[] = [
  'hostPath', 'gcePersistentDisk', 'awsElasticBlockStore', 'glusterfs', 'flocker', 'nfs', 'rbd', 'quobyte', 'cinder', 'cephfs', 'iscsi', 'fc',
  'flexVolume', 'azureFile', 'vsphereVolume', 'photonPersistentDisk', 'portworxVolume', 'azureDisk', 'scaleIO', 'local', 'storageos', 'csi',
];

/** SetDefaults_PersistentVolumeClaim: volumeMode Filesystem. */
export function defaultPersistentVolumeClaim(object: KubeObject): void {
  const spec = ensure<PersistentVolumeClaimSpec>(object, 'spec');
  if (spec.volumeMode == null) spec.volumeMode = 'Filesystem';
}

/** ValidatePersistentVolumeClaimSpec at `spec`. */
export function validatePersistentVolumeClaim(object: KubeObject): StatusCause[] {
  const spec = view<PersistentVolumeClaimSpec>(object, 'spec');
  const causes: StatusCause[] = [];
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) causes.push(fieldError.required('spec.accessModes', 'at least 1 access mode is required'));
  if (spec.selector != null) causes.push(...validateLabelSelector(spec.selector, 'spec.selector'));
  for (const mode of modes) if (!ACCESS_MODES.includes(mode)) causes.push(fieldError.notSupported('spec.accessModes', mode, ACCESS_MODES));
  const storage = spec.resources?.requests?.storage;
  // kube 1.17 keys this path on `resources`, not on `resources.requests`.
  if (storage === undefined) causes.push(fieldError.required('spec.resources[storage]'));
  else causes.push(...positiveQuantity(storage, 'spec.resources[storage]', validateNonNegativeQuantity));
  if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '') causes.push(...validateDns1123Subdomain(spec.storageClassName, 'spec.storageClassName'));
  if (spec.volumeMode != null && !VOLUME_MODES.includes(spec.volumeMode)) causes.push(fieldError.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  if (spec.dataSource != null) {
    const { name = '', kind = '', apiGroup = '' } = spec.dataSource;
    if (name === '') causes.push(fieldError.required('spec.dataSource.name'));
    const groupKind = apiGroup === '' ? kind : `${kind}.${apiGroup}`;
    if (kind === '') causes.push(fieldError.required('spec.dataSource.kind'));
    else if (!DATA_SOURCE_KINDS.includes(groupKind)) causes.push(fieldError.notSupported('spec.dataSource', groupKind, DATA_SOURCE_KINDS));
  }
  return causes;
}

/**
 * ValidatePersistentVolumeClaimUpdate without the ObjectMeta part: the spec is fixed except
 * a first volumeName, the storage class moving from the beta annotation to the field, and
 * (for bound claims) a larger storage request.
 */
export function validatePersistentVolumeClaimUpdate(object: KubeObject, old: KubeObject): StatusCause[] {
  const causes = validatePersistentVolumeClaim(object);
  const spec = view<PersistentVolumeClaimSpec>(object, 'spec');
  const previous = view<PersistentVolumeClaimSpec>(old, 'spec');
  const next: PersistentVolumeClaimSpec = structuredClone(spec);
  const before: PersistentVolumeClaimSpec = structuredClone(previous);
  if ((previous.volumeName ?? '') === '') {
    if (next.volumeName === undefined) delete before.volumeName;
    else before.volumeName = next.volumeName;
  }
  const oldAnnotation = old.metadata.annotations?.[STORAGE_CLASS_ANNOTATION];
  const newAnnotation = object.metadata.annotations?.[STORAGE_CLASS_ANNOTATION];
  const classUpgrade =
    oldAnnotation !== undefined && previous.storageClassName == null && spec.storageClassName === oldAnnotation && (newAnnotation === undefined || newAnnotation === oldAnnotation);
  if (classUpgrade) delete next.storageClassName;
  else if ((newAnnotation ?? '') !== (oldAnnotation ?? '')) {
    causes.push(fieldError.invalid(`metadata.annotations.${STORAGE_CLASS_ANNOTATION}`, newAnnotation ?? '', FIELD_IMMUTABLE));
  }
  const bound = view<{ phase?: string }>(object, 'status').phase === 'Bound';
  if (bound && next.resources?.requests !== undefined) {
    const oldStorage = previous.resources?.requests?.storage;
    if (oldStorage === undefined) delete next.resources.requests.storage;
    else next.resources.requests.storage = oldStorage;
  }
  if (!jsonEqual(semantic(next), semantic(before))) causes.push(fieldError.forbidden('spec', 'is immutable after creation except resources.requests for bound claims'));
  const newSize = quantityOf(spec.resources?.requests?.storage);
  const oldSize = quantityOf(previous.resources?.requests?.storage);
  if ((newSize?.nanos ?? 0n) < (oldSize?.nanos ?? 0n)) causes.push(fieldError.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
  causes.push(...immutable('volumeMode', spec.volumeMode ?? null, previous.volumeMode ?? null));
  return causes;
}

/** SetDefaults_PersistentVolume: reclaim policy Retain, volumeMode Filesystem. */
export function defaultPersistentVolume(object: KubeObject): void {
  const spec = ensure<PersistentVolumeSpec>(object, 'spec');
  if ((spec.persistentVolumeReclaimPolicy ?? '') === '') spec.persistentVolumeReclaimPolicy = 'Retain';
  if (spec.volumeMode == null) spec.volumeMode = 'Filesystem';
}

/** ValidatePersistentVolumeSpec (not inline) at `spec`. */
export function validatePersistentVolume(object: KubeObject): StatusCause[] {
  const spec = view<PersistentVolumeSpec>(object, 'spec');
  const causes: StatusCause[] = [];
  const modes = spec.accessModes ?? [];
  if (modes.length === 0) causes.push(fieldError.required('spec.accessModes'));
  for (const mode of modes) if (!ACCESS_MODES.includes(mode)) causes.push(fieldError.notSupported('spec.accessModes', mode, ACCESS_MODES));
  const capacity = spec.capacity ?? {};
  const resources = Object.keys(capacity);
  if (resources.length === 0) causes.push(fieldError.required('spec.capacity'));
  if (!resources.includes('storage') || resources.length > 1) causes.push(fieldError.notSupported('spec.capacity', capacity, ['storage']));
  for (const [name, value] of Object.entries(capacity)) causes.push(...positiveQuantity(value, `spec.capacity[${name}]`, validateBasicResource));
  const policy = spec.persistentVolumeReclaimPolicy ?? '';
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) causes.push(fieldError.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  if ((spec.storageClassName ?? '') !== '') causes.push(...validateDns1123Subdomain(spec.storageClassName ?? '', 'spec.storageClassName'));
  if (spec.volumeMode != null && !VOLUME_MODES.includes(spec.volumeMode)) causes.push(fieldError.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  const sources = PV_SOURCES.filter((source) => spec[source] != null);
  sources.slice(1).forEach((source) => causes.push(fieldError.forbidden(`spec.${source}`, 'may not specify more than 1 volume type')));
  if (sources.length === 0) causes.push(fieldError.required('spec', 'must specify a volume type'));
  causes.push(...sourceRules(spec, sources[0]));
  return causes;
}

/** ValidatePersistentVolumeUpdate without the ObjectMeta part. */
export function validatePersistentVolumeUpdate(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = view<PersistentVolumeSpec>(object, 'spec');
  const previous = view<PersistentVolumeSpec>(old, 'spec');
  const causes = validatePersistentVolume(object);
  const source = (s: PersistentVolumeSpec): Record<string, unknown> => Object.fromEntries(PV_SOURCES.filter((k) => s[k] != null).map((k) => [k, s[k]]));
  if (!jsonEqual(source(spec), source(previous))) causes.push(fieldError.forbidden('spec.persistentvolumesource', 'is immutable after creation'));
  causes.push(...immutable('volumeMode', spec.volumeMode ?? null, previous.volumeMode ?? null));
  if (previous.nodeAffinity != null) causes.push(...immutable('nodeAffinity', spec.nodeAffinity ?? null, previous.nodeAffinity));
  return causes;
}

/** A quantity that must be positive, after `first` (the non-negative rule the caller's kube function uses). */
function positiveQuantity(value: IntOrString, path: string, first: (q: Quantity, path: string) => StatusCause[]): StatusCause[] {
  const quantity = quantityOf(value);
  if (quantity === undefined) return [fieldError.invalid(path, value, 'must be a valid resource quantity')];
  return [...first(quantity, path), ...validatePositiveQuantity(quantity, path)];
}

/** The few per-source rules kept here: hostPath and local need a path, nfs a server and an absolute path, local a node affinity. */
function sourceRules(spec: PersistentVolumeSpec, source: string | undefined): StatusCause[] {
  if (source !== 'hostPath' && source !== 'local' && source !== 'nfs') return [];
  const value = spec[source] as { path?: string; server?: string };
  const path = value.path ?? '';
  const causes: StatusCause[] = [];
  if (source === 'nfs' && (value.server ?? '') === '') causes.push(fieldError.required('spec.nfs.server'));
  if (path === '') causes.push(fieldError.required(`spec.${source}.path`));
  if (source === 'nfs' && !path.startsWith('/')) causes.push(fieldError.invalid('spec.nfs.path', path, 'must be an absolute path'));
  if (source === 'local' && spec.nodeAffinity == null) causes.push(fieldError.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  return causes;
}

/** A PVC spec as apiequality.Semantic sees it: nulls are absent, quantities compared by value. */
function semantic(spec: PersistentVolumeClaimSpec): unknown {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(spec)) if (value != null) out[key] = value;
  const resources = spec.resources;
  if (resources !== undefined) {
    const canonical = (list: Record<string, IntOrString> | undefined): Record<string, string> | undefined =>
      list === undefined ? undefined : Object.fromEntries(Object.entries(list).map(([k, v]) => [k, quantityOf(v)?.toString() ?? String(v)]));
    out.resources = { requests: canonical(resources.requests), limits: canonical(resources.limits) };
  }
  return JSON.parse(JSON.stringify(out)) as unknown;
}
