import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { qualifiedNameProblems } from '../../apimachinery/validation/names.js';
import { parseQuantity } from '../../api/pod-spec-resources.js';
import type { DownwardAPIVolumeFile, ObjectFieldSelector, ResourceFieldSelector } from '../../api/pod-spec-types.js';
import { validateLocalNonReservedPath, validateMode } from './pod-spec-paths.js';

/**
 * The downward API: pod fields and container resources exposed to env vars and volume files
 * (validateObjectFieldSelector, validateContainerResourceFieldSelector, 1.17).
 */

/** Fields an env var may reference. */
export const ENV_FIELD_PATHS = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.podIP', 'status.podIPs'];
/** Fields a downward-API volume file may reference. */
const VOLUME_FIELD_PATHS = ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'];
const RESOURCE_FIELDS = ['limits.cpu', 'limits.ephemeral-storage', 'limits.memory', 'requests.cpu', 'requests.ephemeral-storage', 'requests.memory'];

/** The field labels ConvertDownwardAPIFieldLabel accepts for pods in v1. */
const CONVERTIBLE = new Set([
  'metadata.annotations',
  'metadata.labels',
  'metadata.name',
  'metadata.namespace',
  'metadata.uid',
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.serviceAccountName',
  'spec.schedulerName',
  'status.phase',
  'status.hostIP',
  'status.podIP',
  'status.podIPs',
]);

/** `metadata.labels['app']` → path and subscript. */
function splitSubscript(fieldPath: string): { path: string; subscript: string } | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const body = fieldPath.slice(0, -2);
  const at = body.indexOf("['");
  if (at <= 0) return undefined;
  return { path: body.slice(0, at), subscript: body.slice(at + 2) };
}

function convertFieldLabel(apiVersion: string, fieldPath: string): string | { error: string } {
  if (apiVersion !== 'v1') return { error: `unsupported pod version: ${apiVersion}` };
  const split = splitSubscript(fieldPath);
  if (split != null) {
    return split.path === 'metadata.annotations' || split.path === 'metadata.labels' ? fieldPath : { error: `field label does not support subscript: ${fieldPath}` };
  }
  if (fieldPath === 'spec.host') return 'spec.nodeName';
  return CONVERTIBLE.has(fieldPath) ? fieldPath : { error: `field label not supported: ${fieldPath}` };
}

export function validateFieldRef(ref: ObjectFieldSelector, allowed: readonly string[], field: string): StatusCause[] {
  if ((ref.apiVersion ?? '') === '') return [fieldError.required(`${field}.apiVersion`)];
  const fieldPath = ref.fieldPath ?? '';
  if (fieldPath === '') return [fieldError.required(`${field}.fieldPath`)];
  const converted = convertFieldLabel(ref.apiVersion ?? '', fieldPath);
  if (typeof converted !== 'string') return [fieldError.invalid(`${field}.fieldPath`, fieldPath, `error converting fieldPath: ${converted.error}`)];
  const split = splitSubscript(converted);
  if (split != null) {
    switch (split.path) {
      case 'metadata.annotations':
        return qualifiedNameProblems(split.subscript.toLowerCase()).map((p) => fieldError.invalid(field, split.subscript, p));
      case 'metadata.labels':
        return qualifiedNameProblems(split.subscript).map((p) => fieldError.invalid(field, split.subscript, p));
      default:
        return [fieldError.invalid(field, split.path, 'does not support subscript')];
    }
  }
  return allowed.includes(converted) ? [] : [fieldError.notSupported(`${field}.fieldPath`, converted, [...allowed].sort())];
}

const CPU_DIVISORS = ['1m', '1'];
const BYTE_DIVISORS = ['1', '1k', '1M', '1G', '1T', '1P', '1E', '1Ki', '1Mi', '1Gi', '1Ti', '1Pi', '1Ei'];

export function validateResourceFieldRef(ref: ResourceFieldSelector, field: string, inVolume: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const resource = ref.resource ?? '';
  if (inVolume && (ref.containerName ?? '') === '') causes.push(fieldError.required(`${field}.containerName`));
  else if (resource === '') causes.push(fieldError.required(`${field}.resource`));
  else if (!RESOURCE_FIELDS.includes(resource)) causes.push(fieldError.notSupported(`${field}.resource`, resource, RESOURCE_FIELDS));
  const divisor = ref.divisor == null ? undefined : parseQuantity(ref.divisor);
  if (divisor == null || divisor.nanos === 0n) return causes;
  const text = divisor.toString();
  if ((resource === 'limits.cpu' || resource === 'requests.cpu') && !CPU_DIVISORS.includes(text)) {
    causes.push(fieldError.invalid(`${field}.divisor`, resource, "only divisor's values 1m and 1 are supported with the cpu resource"));
  } else if ((resource === 'limits.memory' || resource === 'requests.memory') && !BYTE_DIVISORS.includes(text)) {
    causes.push(fieldError.invalid(`${field}.divisor`, resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the memory resource"));
  } else if ((resource === 'limits.ephemeral-storage' || resource === 'requests.ephemeral-storage') && !BYTE_DIVISORS.includes(text)) {
    causes.push(fieldError.invalid(`${field}.divisor`, resource, "only divisor's values 1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei are supported with the local ephemeral storage resource"));
  }
  return causes;
}

/** validateDownwardAPIVolumeFile; kube reports at the source's path, not the item's. */
export function validateDownwardFile(file: DownwardAPIVolumeFile, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if ((file.path ?? '') === '') causes.push(fieldError.required(`${field}.path`));
  causes.push(...validateLocalNonReservedPath(file.path ?? '', `${field}.path`));
  if (file.fieldRef != null) {
    causes.push(...validateFieldRef(file.fieldRef, VOLUME_FIELD_PATHS, `${field}.fieldRef`));
    if (file.resourceFieldRef != null) causes.push(fieldError.invalid(field, 'resource', 'fieldRef and resourceFieldRef can not be specified simultaneously'));
  } else if (file.resourceFieldRef != null) {
    causes.push(...validateResourceFieldRef(file.resourceFieldRef, `${field}.resourceFieldRef`, true));
  } else {
    causes.push(fieldError.required(field, 'one of fieldRef and resourceFieldRef is required'));
  }
  causes.push(...validateMode(file.mode, `${field}.mode`));
  return causes;
}
