import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123LabelProblems } from '../../apimachinery/validation/names.js';
import { validateDownwardFile } from './pod-spec-downward.js';
import { validateLocalNonReservedPath, validateMode, validateNoBacksteps } from './pod-spec-paths.js';
import { parseQuantity } from '../../api/pod-spec-resources.js';
import type { KeyToPath, ProjectionSource, Volume } from '../../api/pod-spec-types.js';
import { VOLUME_SOURCES } from './pod-spec-volume-defaults.js';

/**
 * ValidateVolumes (core validation, 1.17): names are unique DNS-1123 labels, exactly one
 * source each, and the rules of the sources pods commonly use (emptyDir, hostPath, secret,
 * configMap, persistentVolumeClaim, downwardAPI, projected, nfs). Returns the volumes that
 * passed, by name, for volumeMount checks.
 */
export function validateVolumes(volumes: readonly Volume[], field: string): { causes: StatusCause[]; valid: Map<string, Volume> } {
  const causes: StatusCause[] = [];
  const valid = new Map<string, Volume>();
  volumes.forEach((volume, i) => {
    const at = `${field}[${i}]`;
    const name = volume.name ?? '';
    const own = validateVolumeSource(volume, at);
    if (name === '') own.push(fieldError.required(`${at}.name`));
    else own.push(...dns1123LabelProblems(name).map((p) => fieldError.invalid(`${at}.name`, name, p)));
    if (valid.has(name)) own.push(fieldError.duplicate(`${at}.name`, name));
    if (own.length === 0) valid.set(name, volume);
    else causes.push(...own);
  });
  return { causes, valid };
}

const SOURCE_FIELD_NAMES: Partial<Record<(typeof VOLUME_SOURCES)[number], string>> = {
  // kube's own spelling of these two paths in the "more than 1 volume type" error.
  downwardAPI: 'downwarAPI',
  cephfs: 'cephFS',
};

function validateVolumeSource(volume: Volume, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  let count = 0;
  for (const source of VOLUME_SOURCES) {
    if (volume[source] == null) continue;
    if (count > 0) {
      causes.push(fieldError.forbidden(`${at}.${SOURCE_FIELD_NAMES[source] ?? source}`, 'may not specify more than 1 volume type'));
      continue;
    }
    count++;
    causes.push(...validateSource(volume, source, at));
  }
  if (count === 0) causes.push(fieldError.required(at, 'must specify a volume type'));
  return causes;
}

function validateSource(volume: Volume, source: (typeof VOLUME_SOURCES)[number], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  switch (source) {
    case 'emptyDir': {
      const limit = volume.emptyDir?.sizeLimit;
      const quantity = limit == null ? undefined : parseQuantity(limit);
      if (limit != null && (quantity == null || quantity.nanos < 0n)) causes.push(fieldError.forbidden(`${at}.emptyDir.sizeLimit`, 'SizeLimit field must be a valid resource quantity'));
      break;
    }
    case 'hostPath':
      causes.push(...validateHostPath(volume.hostPath ?? {}, `${at}.hostPath`));
      break;
    case 'secret': {
      const secret = volume.secret ?? {};
      if ((secret.secretName ?? '') === '') causes.push(fieldError.required(`${at}.secret.secretName`));
      causes.push(...validateMode(secret.defaultMode, `${at}.secret.defaultMode`));
      (secret.items ?? []).forEach((item, i) => causes.push(...validateKeyToPath(item, `${at}.secret.items[${i}]`)));
      break;
    }
    case 'configMap': {
      const configMap = volume.configMap ?? {};
      if ((configMap.name ?? '') === '') causes.push(fieldError.required(`${at}.configMap.name`));
      causes.push(...validateMode(configMap.defaultMode, `${at}.configMap.defaultMode`));
      (configMap.items ?? []).forEach((item, i) => causes.push(...validateKeyToPath(item, `${at}.configMap.items[${i}]`)));
      break;
    }
    case 'persistentVolumeClaim':
      if ((volume.persistentVolumeClaim?.claimName ?? '') === '') causes.push(fieldError.required(`${at}.persistentVolumeClaim.claimName`));
      break;
    case 'downwardAPI': {
      const downward = volume.downwardAPI ?? {};
      causes.push(...validateMode(downward.defaultMode, `${at}.downwardAPI.defaultMode`));
      for (const item of downward.items ?? []) causes.push(...validateDownwardFile(item, `${at}.downwardAPI`));
      break;
    }
    case 'projected': {
      const projected = volume.projected ?? {};
      causes.push(...validateMode(projected.defaultMode, `${at}.projected.defaultMode`));
      causes.push(...validateProjectionSources(projected.sources ?? [], `${at}.projected`));
      break;
    }
    case 'nfs': {
      const nfs = (volume.nfs ?? {}) as { server?: string; path?: string };
      if ((nfs.server ?? '') === '') causes.push(fieldError.required(`${at}.nfs.server`));
      if ((nfs.path ?? '') === '') causes.push(fieldError.required(`${at}.nfs.path`));
      if (!(nfs.path ?? '').startsWith('/')) causes.push(fieldError.invalid(`${at}.nfs.path`, nfs.path ?? '', 'must be an absolute path'));
      break;
    }
    default:
      // The remaining (cloud and cluster storage) sources are accepted as the schema shapes them.
      break;
  }
  return causes;
}

const HOST_PATH_TYPES = ['', 'BlockDevice', 'CharDevice', 'Directory', 'DirectoryOrCreate', 'File', 'FileOrCreate', 'Socket'];

function validateHostPath(hostPath: { path?: string; type?: string }, at: string): StatusCause[] {
  if ((hostPath.path ?? '') === '') return [fieldError.required(`${at}.path`)];
  const causes = validateNoBacksteps(hostPath.path ?? '', `${at}.path`);
  if (hostPath.type != null && !HOST_PATH_TYPES.includes(hostPath.type)) causes.push(fieldError.notSupported(`${at}.type`, hostPath.type, HOST_PATH_TYPES));
  return causes;
}

function validateKeyToPath(item: KeyToPath, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((item.key ?? '') === '') causes.push(fieldError.required(`${at}.key`));
  if ((item.path ?? '') === '') causes.push(fieldError.required(`${at}.path`));
  causes.push(...validateLocalNonReservedPath(item.path ?? '', `${at}.path`));
  causes.push(...validateMode(item.mode, `${at}.mode`));
  return causes;
}

function validateProjectionSources(sources: readonly ProjectionSource[], at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const paths = new Set<string>();
  const claim = (path: string | undefined, value: string): void => {
    if (path == null || path === '') return;
    if (paths.has(path)) causes.push(fieldError.invalid(at, value, 'conflicting duplicate paths'));
    paths.add(path);
  };
  sources.forEach((source, i) => {
    const sourceAt = `${at}.sources[${i}]`;
    let count = 0;
    for (const kind of ['secret', 'configMap'] as const) {
      const projection = source[kind];
      if (projection == null) continue;
      count++;
      if ((projection.name ?? '') === '') causes.push(fieldError.required(`${sourceAt}.${kind}.name`));
      (projection.items ?? []).forEach((item, j) => {
        causes.push(...validateKeyToPath(item, `${sourceAt}.${kind}.items[${j}]`));
        claim(item.path, projection.name ?? '');
      });
    }
    if (source.downwardAPI != null) {
      count++;
      for (const item of source.downwardAPI.items ?? []) {
        causes.push(...validateDownwardFile(item, `${sourceAt}.downwardAPI`));
        claim(item.path, item.path ?? '');
      }
    }
    const token = source.serviceAccountToken;
    if (token != null) {
      count++;
      const seconds = token.expirationSeconds ?? 0;
      if (seconds < 600) causes.push(fieldError.invalid(`${sourceAt}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration less than 10 minutes'));
      if (seconds > 2 ** 32) causes.push(fieldError.invalid(`${sourceAt}.serviceAccountToken.expirationSeconds`, seconds, 'may not specify a duration larger than 2^32 seconds'));
      if ((token.path ?? '') === '') causes.push(fieldError.required(`${at}.path`));
    }
    if (count > 1) causes.push(fieldError.forbidden(sourceAt, 'may not specify more than 1 volume type'));
  });
  return causes;
}
