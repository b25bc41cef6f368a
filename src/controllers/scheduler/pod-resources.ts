import { Quantity } from '../../apimachinery/quantity/quantity.js';
import type { Container, PodSpec, QuantityValue, ResourceList } from '../../api/pod-spec-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** CPU in millicores and memory in bytes. */
export interface Resources {
  readonly cpuMillis: number;
  readonly memoryBytes: number;
}

export const NO_RESOURCES: Resources = { cpuMillis: 0, memoryBytes: 0 };

/**
 * What a pod asks of a node (kube's computePodResourceRequest): the sum of its containers'
 * requests — a request left unset counts its limit, as kube defaults it — or the largest
 * init container's, whichever is more, plus the pod overhead.
 */
export function podRequests(pod: KubeObject): Resources {
  return podTotal(specOf<PodSpec>(pod), (c) => c.resources?.requests, (c) => c.resources?.limits);
}

/** What a pod may use at most, for quotas: the same sum over limits (a missing limit counts its request). */
export function podLimits(pod: KubeObject): Resources {
  return podTotal(specOf<PodSpec>(pod), (c) => c.resources?.limits, (c) => c.resources?.requests);
}

function podTotal(spec: PodSpec, first: (c: Container) => ResourceList | null | undefined, fallback: (c: Container) => ResourceList | null | undefined): Resources {
  const of = (c: Container, name: string): QuantityValue | undefined => first(c)?.[name] ?? fallback(c)?.[name];
  let cpu = 0;
  let memory = 0;
  for (const c of spec.containers ?? []) {
    cpu += cpuMillis(of(c, 'cpu'));
    memory += bytes(of(c, 'memory'));
  }
  for (const c of spec.initContainers ?? []) {
    cpu = Math.max(cpu, cpuMillis(of(c, 'cpu')));
    memory = Math.max(memory, bytes(of(c, 'memory')));
  }
  cpu += cpuMillis(spec.overhead?.cpu);
  memory += bytes(spec.overhead?.memory);
  return { cpuMillis: cpu, memoryBytes: memory };
}

/** A quantity in millicores (0 when absent or unparsable). */
export function cpuMillis(value: QuantityValue | undefined): number {
  return value === undefined ? 0 : Number(parse(value)?.milliValue() ?? 0n);
}

/** A quantity in whole units, bytes for memory (0 when absent or unparsable). */
export function bytes(value: QuantityValue | undefined): number {
  return value === undefined ? 0 : Number(parse(value)?.value() ?? 0n);
}

function parse(value: QuantityValue): Quantity | undefined {
  try {
    return Quantity.parse(String(value));
  } catch {
    return undefined;
  }
}

/** CPU as millicores (`250m`). */
export function formatCpu(millis: number): string {
  return `${millis}m`;
}

/** Memory in the largest binary unit that divides it (`256Mi`), else bytes. */
export function formatMemory(value: number): string {
  for (const [unit, size] of [['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]] as const) if (value !== 0 && value % size === 0) return `${value / size}${unit}`;
  return String(value);
}
