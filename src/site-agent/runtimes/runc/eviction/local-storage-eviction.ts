import { Quantity } from '../../../../apimachinery/quantity/quantity.js';
import { parseQuantity } from '../../../../api/pod-spec-resources.js';
import type { Container, PodSpec, ResourceList, Volume } from '../../../../api/pod-spec-types.js';
import { SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';

/** What one measurement found a pod using on the site's disk. */
export interface PodStorageUsage {
  /** Bytes of each container's folder (its writable layer, its logs, its instance's bundle), by container name. */
  readonly containers: ReadonlyMap<string, number>;
  /** Bytes of each local ephemeral volume on disk ({@link localEphemeralVolumes}), by volume name. */
  readonly volumes: ReadonlyMap<string, number>;
}

const EPHEMERAL_STORAGE = 'ephemeral-storage';

/**
 * The volumes whose bytes count as the pod's local ephemeral storage and are measured on disk:
 * emptyDir not backed by memory and configMap (kubelet's IsLocalEphemeralVolume; downwardAPI
 * is one too, but here it is a tmpfs, as secrets and projected volumes are, and an emptyDir
 * with `medium: Memory` is a tmpfs of `sizeLimit` bytes: the kernel holds it to that). Pure.
 */
export function localEphemeralVolumes(spec: PodSpec): Volume[] {
  return (spec.volumes ?? []).filter((volume) => volume.configMap != null || isDiskEmptyDir(volume));
}

function isDiskEmptyDir(volume: Volume): boolean {
  if (volume.emptyDir != null) return volume.emptyDir.medium !== 'Memory';
  // A volume without any source is an emptyDir (the API server defaults it so).
  return Object.keys(volume).every((key) => key === 'name' || volume[key] == null);
}

/** A positive ephemeral-storage quantity of a resource list, or undefined. */
function ephemeral(list: ResourceList | null | undefined): Quantity | undefined {
  const quantity = parseQuantity(list?.[EPHEMERAL_STORAGE]);
  return quantity !== undefined && quantity.nanos > 0n ? quantity : undefined;
}

const bytesOf = (quantity: Quantity): number => Number(quantity.value());
const workload = (containers: readonly Container[] | null | undefined): Container[] => (containers ?? []).filter((c) => c.name !== SIDECAR_CONTAINER_NAME);

/**
 * kubelet's PodRequestsAndLimits for one resource: the app containers' sum, or the largest init
 * container's when larger; undefined when no container names it. Kept in the first quantity's
 * format, as Quantity.Add keeps it (`10Mi` + `5Mi` = `15Mi`).
 */
function podTotal(spec: PodSpec, of: (container: Container) => Quantity | undefined): Quantity | undefined {
  const apps = workload(spec.containers).map(of).filter((q) => q !== undefined);
  const inits = workload(spec.initContainers).map(of).filter((q) => q !== undefined);
  if (apps.length === 0 && inits.length === 0) return undefined;
  const format = (apps[0] ?? inits[0])?.format ?? 'BinarySI';
  const sum = apps.reduce((total, q) => total + q.value(), 0n);
  const init = inits.reduce((most, q) => (q.value() > most ? q.value() : most), 0n);
  return Quantity.fromUnits(sum > init ? sum : init, format);
}

/** The pod's own bytes: its workload containers' folders and its local ephemeral volumes (the injected sidecar's are the platform's). */
export function podUsageBytes(usage: PodStorageUsage): number {
  let total = 0;
  for (const [name, bytes] of usage.containers) if (name !== SIDECAR_CONTAINER_NAME) total += bytes;
  for (const bytes of usage.volumes.values()) total += bytes;
  return total;
}

/** Every byte the pod holds on the site's disk, the injected sidecar's included (what the site's cap counts). */
function siteUsageBytes(usage: PodStorageUsage): number {
  let total = 0;
  for (const bytes of [...usage.containers.values(), ...usage.volumes.values()]) total += bytes;
  return total;
}

/** `resource.NewQuantity(bytes, BinarySI).String()`: `50Mi`, `12Ki`, `1000`. */
const bytesText = (bytes: number): string => Quantity.fromUnits(Math.max(0, Math.round(bytes)), 'BinarySI').toString();

/**
 * kubelet's localStorageEviction for one pod (eviction manager, LocalStorageCapacityIsolation),
 * pure: the message to evict it with, or undefined when it is within its limits. In kubelet's
 * order, the first that holds:
 * 1. an emptyDir with a positive `sizeLimit` uses more than it:
 *    `Usage of EmptyDir volume "data" exceeds the limit "10Mi". `;
 * 2. the pod has an ephemeral-storage limit (the app containers' limits summed, or the largest
 *    init container's) and its containers' folders and local ephemeral volumes together use
 *    more: `Pod ephemeral local storage usage exceeds the total limit of containers 10Mi. `;
 * 3. an app container's folder (writable layer, logs) uses more than its own limit:
 *    `Container c exceeded its local ephemeral storage limit "10Mi". `.
 * The messages are kubelet's, trailing space included. The injected sidecar is the platform's:
 * its bytes and limits count for no pod.
 */
export function localStorageEviction(spec: PodSpec, usage: PodStorageUsage): string | undefined {
  for (const volume of spec.volumes ?? []) {
    const name = volume.name ?? '';
    const size = parseQuantity(volume.emptyDir?.sizeLimit ?? undefined);
    const used = usage.volumes.get(name);
    if (size !== undefined && size.nanos > 0n && used !== undefined && used > bytesOf(size)) {
      return `Usage of EmptyDir volume "${name}" exceeds the limit "${size.toString()}". `;
    }
  }
  const podLimit = podTotal(spec, (c) => ephemeral(c.resources?.limits));
  if (podLimit !== undefined && podUsageBytes(usage) > bytesOf(podLimit)) {
    return `Pod ephemeral local storage usage exceeds the total limit of containers ${podLimit.toString()}. `;
  }
  for (const container of workload(spec.containers)) {
    const limit = ephemeral(container.resources?.limits);
    const used = usage.containers.get(container.name ?? '');
    if (limit !== undefined && used !== undefined && used > bytesOf(limit)) {
      return `Container ${container.name ?? ''} exceeded its local ephemeral storage limit "${limit.toString()}". `;
    }
  }
  return undefined;
}

/** One measured pod of a site, for {@link siteStorageEviction}. */
export interface SitePodUsage {
  readonly key: string;
  readonly spec: PodSpec;
  readonly usage: PodStorageUsage;
}

/**
 * kubelet's eviction under node disk pressure (`ephemeral-storage`, hard threshold), for a
 * site whose pods together hold more than its cap, pure: the pod to evict, or undefined when
 * they hold no more than `capBytes`. One pod per measurement, ranked as kubelet's
 * rankDiskPressureFunc does: pods using more than their ephemeral-storage request first, then
 * the lowest `priority`, then the largest usage above the request. The message is kubelet's:
 * `The node was low on resource: ephemeral-storage. Container c was using 40Mi, which exceeds
 * its request of 0. ` (a sentence for each app container using more than its request).
 * Every byte counts towards the cap, the injected sidecar's included.
 */
export function siteStorageEviction(pods: readonly SitePodUsage[], capBytes: number): { readonly key: string; readonly message: string } | undefined {
  const total = pods.reduce((sum, pod) => sum + siteUsageBytes(pod.usage), 0);
  if (total <= capBytes) return undefined;
  const ranked = pods.map((pod) => {
    const request = podTotal(pod.spec, (c) => ephemeral(c.resources?.requests));
    const used = siteUsageBytes(pod.usage);
    const requested = request === undefined ? 0 : bytesOf(request);
    return { pod, exceeds: used > requested, priority: pod.spec.priority ?? 0, above: used - requested };
  });
  ranked.sort((a, b) => Number(b.exceeds) - Number(a.exceeds) || a.priority - b.priority || b.above - a.above);
  const chosen = ranked[0]?.pod;
  if (chosen === undefined) return undefined;
  let message = `The node was low on resource: ${EPHEMERAL_STORAGE}. `;
  for (const container of workload(chosen.spec.containers)) {
    const used = chosen.usage.containers.get(container.name ?? '');
    const request = ephemeral(container.resources?.requests);
    if (used !== undefined && used > (request === undefined ? 0 : bytesOf(request))) {
      message += `Container ${container.name ?? ''} was using ${bytesText(used)}, which exceeds its request of ${request?.toString() ?? '0'}. `;
    }
  }
  return { key: chosen.key, message };
}
