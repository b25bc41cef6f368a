import { safeSysctls } from '../../../../api/pod-security/index.js';
import type { PodSpec } from '../../../../api/pod-spec-types.js';

/** A pod that asks for a sysctl the site does not set (kubelet's `SysctlForbidden` admission failure). */
export class SysctlForbiddenError extends Error {
  override readonly name = 'SysctlForbiddenError';
}

/** ICMP sockets for every group: containers have no CAP_NET_RAW, so ping uses those (as Docker sets it). */
const SANDBOX_DEFAULTS: Readonly<Record<string, string>> = { 'net.ipv4.ping_group_range': '0 2147483647' };

/** Sysctls the kernel keeps per IPC or network namespace (kubelet's namespaced groups): the pod's own, none of the host's. */
const NAMESPACED_PREFIXES = ['kernel.shm', 'kernel.msg', 'kernel.sem', 'fs.mqueue.', 'net.'];
const NAME = /^([a-z0-9]([-_a-z0-9]*[a-z0-9])?[./])*[a-z0-9]([-_a-z0-9]*[a-z0-9])?$/;

const isNamespaced = (name: string): boolean => NAMESPACED_PREFIXES.some((prefix) => name === prefix || name.startsWith(prefix));

/**
 * The sysctls a pod's sandbox sets (runc writes them in the pod's own namespaces before its
 * infra process starts, so every container sees them): the site's defaults, then the pod's
 * `securityContext.sysctls` (a name with `/` read as with `.`, as kubelet does). Every site
 * sets the safe ones (Pod Security baseline's list); a site that runs what baseline forbids
 * (a tenant's customer edge) also sets the other namespaced ones (kubelet's
 * `--allowed-unsafe-sysctls=kernel.shm*,kernel.msg*,kernel.sem,fs.mqueue.*,net.*`); a sysctl
 * of the host's (`kernel.core_pattern`, `vm.*`) is never set. Throws {@link SysctlForbiddenError}
 * with kubelet's words for the first one refused. Pure.
 */
export function podSysctls(spec: PodSpec, allowUnsafe: boolean): Record<string, string> {
  const safe = safeSysctls(Number.MAX_SAFE_INTEGER);
  const set: Record<string, string> = { ...SANDBOX_DEFAULTS };
  for (const entry of spec.securityContext?.sysctls ?? []) {
    const given = entry.name ?? '';
    const name = given.includes('.') ? given : given.replaceAll('/', '.');
    const value = entry.value ?? '';
    const allowed = NAME.test(given) && (safe.has(name) || (allowUnsafe && isNamespaced(name)));
    if (!allowed) throw new SysctlForbiddenError(`Pod forbidden sysctl: "${given}" not allowed`);
    if (/[\n\0]/.test(value)) throw new SysctlForbiddenError(`Pod forbidden sysctl: "${given}" has a value with a line break or NUL byte`);
    set[name] = value;
  }
  return set;
}
