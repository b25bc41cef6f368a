import { posix } from 'node:path';
import type { Container, DownwardAPIVolumeFile, ResourceFieldSelector, ResourceList } from '../../../../api/pod-spec-types.js';
import { parseQuantity } from '../../../../api/pod-spec-resources.js';
import type { Quantity } from '../../../../apimachinery/quantity/quantity.js';
import { qualifiedNameProblems } from '../../../../apimachinery/validation/names.js';
import { goQuote } from './go-quote.js';
import { DEFAULT_FILE_MODE } from './key-projection.js';
import type { VolumePod, VolumeFile } from './volume-types.js';

/**
 * The downward API as kubelet writes it into volumes (`downwardapi.CollectData`): pod fields
 * by `fieldRef` and container resources by `resourceFieldRef`. Errors are collected and
 * reported together, like kubelet's aggregate.
 */

/** `metadata.labels` / `metadata.annotations` as kubelet prints them: `key="value"` lines, sorted, Go-quoted. */
export function formatMap(map: Readonly<Record<string, string>> | undefined): string {
  return Object.keys(map ?? {})
    .sort()
    .map((key) => `${key}=${goQuote(map?.[key] ?? '')}`)
    .join('\n');
}

/** `metadata.labels['key']` → [`metadata.labels`, `key`] (fieldpath.SplitMaybeSubscriptedPath). */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const inner = fieldPath.slice(0, -2);
  const at = inner.indexOf("['");
  if (at <= 0) return undefined;
  return [inner.slice(0, at), inner.slice(at + 2)];
}

/** fieldpath.ExtractFieldPathAsString on a pod. */
export function podFieldValue(pod: VolumePod, fieldPath: string): string {
  const meta = pod.metadata;
  const subscripted = splitSubscript(fieldPath);
  if (subscripted !== undefined) {
    const [path, key] = subscripted;
    if (path !== 'metadata.labels' && path !== 'metadata.annotations') throw new Error(`fieldPath ${goQuote(fieldPath)} does not support subscript`);
    const problems = qualifiedNameProblems(key.toLowerCase());
    if (problems.length > 0) throw new Error(`invalid key subscript in ${fieldPath}: ${problems.join(';')}`);
    return (path === 'metadata.labels' ? meta.labels : meta.annotations)?.[key] ?? '';
  }
  switch (fieldPath) {
    case 'metadata.annotations':
      return formatMap(meta.annotations);
    case 'metadata.labels':
      return formatMap(meta.labels);
    case 'metadata.name':
      return meta.name ?? '';
    case 'metadata.namespace':
      return meta.namespace ?? '';
    case 'metadata.uid':
      return meta.uid ?? '';
    default:
      throw new Error(`unsupported fieldPath: ${fieldPath}`);
  }
}

function findContainer(pod: VolumePod, name: string): Container {
  const container = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])].find((candidate) => candidate.name === name);
  if (container === undefined) throw new Error(`container ${name} not found`);
  return container;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a % b === 0n || a < 0n !== b < 0n ? a / b : a / b + 1n);

function quantityOf(list: ResourceList | null | undefined, name: string): Quantity | undefined {
  const value = list?.[name];
  return value === undefined ? undefined : parseQuantity(value);
}

/**
 * kubelet's `ExtractResourceValueByContainerNameAndNodeAllocatable`: a container's request or
 * limit of cpu, memory or ephemeral-storage, divided by `divisor` (default 1) and rounded up —
 * cpu in thousandths, the others in whole units. A limit the container does not set (or sets
 * to zero) is the node's allocatable amount.
 */
export function containerResourceValue(pod: VolumePod, selector: ResourceFieldSelector, nodeAllocatable: ResourceList): string {
  const container = findContainer(pod, selector.containerName ?? '');
  const resource = selector.resource ?? '';
  const [scope, name = ''] = resource.split('.', 2);
  if ((scope !== 'limits' && scope !== 'requests') || !['cpu', 'memory', 'ephemeral-storage'].includes(name)) throw new Error(`unsupported container resource : ${resource}`);
  let divisor = selector.divisor === undefined ? undefined : parseQuantity(selector.divisor);
  if (selector.divisor !== undefined && divisor === undefined) throw new Error(`invalid divisor ${String(selector.divisor)} for ${resource}`);
  if (divisor === undefined || divisor.nanos === 0n) divisor = parseQuantity('1');
  let amount = quantityOf(scope === 'limits' ? container.resources?.limits : container.resources?.requests, name);
  if (scope === 'limits' && (amount === undefined || amount.nanos === 0n)) amount = quantityOf(nodeAllocatable, name);
  const [value, per] = name === 'cpu' ? [amount?.milliValue() ?? 0n, divisor?.milliValue() ?? 1n] : [amount?.value() ?? 0n, divisor?.value() ?? 1n];
  if (per === 0n) throw new Error(`invalid divisor ${String(selector.divisor)} for ${resource}`);
  return ceilDiv(value, per).toString();
}

/** Go's filepath.Clean for the relative paths of downward API items. */
function cleanPath(path: string): string {
  const normal = posix.normalize(path);
  return normal.length > 1 && normal.endsWith('/') ? normal.slice(0, -1) : normal;
}

/** One error for several, as Go's `utilerrors.NewAggregate` prints it. */
export function aggregateError(errors: readonly Error[]): Error | undefined {
  if (errors.length === 0) return undefined;
  if (errors.length === 1) return errors[0];
  return new Error(`[${errors.map((error) => error.message).join(', ')}]`);
}

/** The files of a downwardAPI volume or projection, and the errors of the items that failed. */
export function downwardApiFiles(pod: VolumePod, items: readonly DownwardAPIVolumeFile[] | null | undefined, defaultMode: number | undefined, nodeAllocatable: ResourceList): { files: VolumeFile[]; errors: Error[] } {
  const files: VolumeFile[] = [];
  const errors: Error[] = [];
  for (const item of items ?? []) {
    const path = cleanPath(item.path ?? '');
    const mode = item.mode ?? defaultMode ?? DEFAULT_FILE_MODE;
    let text = '';
    try {
      if (item.fieldRef !== undefined) text = podFieldValue(pod, item.fieldRef.fieldPath ?? '');
      else if (item.resourceFieldRef !== undefined) text = containerResourceValue(pod, item.resourceFieldRef, nodeAllocatable);
    } catch (error) {
      errors.push(error as Error);
    }
    files.push({ path, data: Buffer.from(text, 'utf8'), mode });
  }
  return { files, errors };
}
