import { parseQuantity } from '../../../../api/pod-spec-resources.js';
import type { QosClass } from '../../../../api/pod-spec-qos.js';
import type { ResourceRequirements } from '../../../../api/pod-spec-types.js';
import type { OciLinuxResources } from '../oci/index.js';

/** The CFS period kubelet uses (100 ms). */
const CPU_PERIOD_US = 100_000;
/** The smallest quota the kernel accepts (1 ms), as kubelet's MinQuotaPeriod. */
const MIN_CPU_QUOTA_US = 1_000;
/** cpu.shares bounds (kubelet's MinShares / MaxShares). */
const MIN_CPU_SHARES = 2;
const MAX_CPU_SHARES = 262_144;
const SHARES_PER_CPU = 1_024;

function milliOf(list: ResourceRequirements['limits'], name: string): bigint | undefined {
  const quantity = parseQuantity(list?.[name] ?? undefined);
  return quantity === undefined ? undefined : quantity.milliValue();
}

function bytesOf(list: ResourceRequirements['limits'], name: string): bigint | undefined {
  const quantity = parseQuantity(list?.[name] ?? undefined);
  return quantity === undefined ? undefined : quantity.value();
}

/**
 * cpu.shares from the cpu request as kubelet's MilliCPUToShares: 1,024 per CPU, at least 2
 * (a container without a request gets the minimum, as BestEffort ones do).
 */
export function cpuShares(requestMilli: bigint | undefined): number {
  if (requestMilli === undefined || requestMilli === 0n) return MIN_CPU_SHARES;
  const shares = Number((requestMilli * BigInt(SHARES_PER_CPU)) / 1000n);
  return Math.min(MAX_CPU_SHARES, Math.max(MIN_CPU_SHARES, shares));
}

/** The CFS quota for a cpu limit as kubelet's MilliCPUToQuota: limit × period, at least 1 ms; none without a limit. */
export function cpuQuota(limitMilli: bigint | undefined): number | undefined {
  if (limitMilli === undefined || limitMilli === 0n) return undefined;
  const quota = Number((limitMilli * BigInt(CPU_PERIOD_US)) / 1000n);
  return Math.max(MIN_CPU_QUOTA_US, quota);
}

/**
 * A container's cgroup resources from its requests and limits: cpu.shares from the request,
 * the CFS quota from the cpu limit, memory.limit_in_bytes from the memory limit (swap held to
 * the same figure, so the limit is the whole of what the container may use, as kubelet does
 * without swap), and a pid limit for the whole pod's tree. Devices: every access denied but
 * the defaults runc always allows (null, zero, full, tty, random, urandom, pts, ptmx).
 */
export function containerResources(resources: ResourceRequirements | undefined, pidsLimit: number): OciLinuxResources {
  const quota = cpuQuota(milliOf(resources?.limits, 'cpu'));
  const memory = bytesOf(resources?.limits, 'memory');
  return {
    devices: [{ allow: false, access: 'rwm' }],
    cpu: { shares: cpuShares(milliOf(resources?.requests, 'cpu')), ...(quota === undefined ? {} : { quota, period: CPU_PERIOD_US }) },
    ...(memory === undefined || memory === 0n ? {} : { memory: { limit: Number(memory), swap: Number(memory) } }),
    pids: { limit: pidsLimit },
  };
}

/**
 * The OOM score adjustment kubelet gives a container (pkg/kubelet/qos/policy.go): Guaranteed
 * −997, BestEffort 1,000, Burstable in between by the share of the machine's memory its
 * request asks for, kept within [3, 999] so it dies after BestEffort and before Guaranteed.
 */
export function oomScoreAdjust(qos: QosClass, memoryRequestBytes: bigint | undefined, machineMemoryBytes: number): number {
  if (qos === 'Guaranteed') return -997;
  if (qos === 'BestEffort') return 1000;
  const request = Number(memoryRequestBytes ?? 0n);
  const adjust = 1000 - Math.floor((1000 * request) / machineMemoryBytes);
  return Math.min(999, Math.max(3, adjust));
}

/** The container's memory request in bytes, for {@link oomScoreAdjust}. */
export function memoryRequestBytes(resources: ResourceRequirements | undefined): bigint | undefined {
  return bytesOf(resources?.requests, 'memory');
}
