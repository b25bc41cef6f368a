import type { SecurityContext } from '../../../../api/pod-spec-types.js';
import type { OciCapabilities } from '../oci/index.js';

/**
 * The capabilities a container gets by default: containerd's set without CAP_NET_RAW, as
 * CRI-O ships since 1.18. NET_RAW lets a pod forge ARP and IP packets on the site bridge;
 * ping still works through ICMP sockets. A pod that needs it adds it (a customer edge only:
 * Pod Security baseline does not allow adding it).
 */
const DEFAULT_CAPABILITIES = [
  'CAP_CHOWN',
  'CAP_DAC_OVERRIDE',
  'CAP_FSETID',
  'CAP_FOWNER',
  'CAP_MKNOD',
  'CAP_SETGID',
  'CAP_SETUID',
  'CAP_SETFCAP',
  'CAP_SETPCAP',
  'CAP_NET_BIND_SERVICE',
  'CAP_SYS_CHROOT',
  'CAP_KILL',
  'CAP_AUDIT_WRITE',
] as const;

/** Every capability Linux 5.9+ knows (capability.h), for `add: [ALL]`. */
const ALL_CAPABILITIES = [
  'CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_DAC_READ_SEARCH', 'CAP_FOWNER', 'CAP_FSETID', 'CAP_KILL', 'CAP_SETGID', 'CAP_SETUID',
  'CAP_SETPCAP', 'CAP_LINUX_IMMUTABLE', 'CAP_NET_BIND_SERVICE', 'CAP_NET_BROADCAST', 'CAP_NET_ADMIN', 'CAP_NET_RAW',
  'CAP_IPC_LOCK', 'CAP_IPC_OWNER', 'CAP_SYS_MODULE', 'CAP_SYS_RAWIO', 'CAP_SYS_CHROOT', 'CAP_SYS_PTRACE', 'CAP_SYS_PACCT',
  'CAP_SYS_ADMIN', 'CAP_SYS_BOOT', 'CAP_SYS_NICE', 'CAP_SYS_RESOURCE', 'CAP_SYS_TIME', 'CAP_SYS_TTY_CONFIG', 'CAP_MKNOD',
  'CAP_LEASE', 'CAP_AUDIT_WRITE', 'CAP_AUDIT_CONTROL', 'CAP_SETFCAP', 'CAP_MAC_OVERRIDE', 'CAP_MAC_ADMIN', 'CAP_SYSLOG',
  'CAP_WAKE_ALARM', 'CAP_BLOCK_SUSPEND', 'CAP_AUDIT_READ', 'CAP_PERFMON', 'CAP_BPF', 'CAP_CHECKPOINT_RESTORE',
] as const;

/** Kubernetes names capabilities without the prefix (`NET_ADMIN`); the OCI spec with it. */
function ociName(name: string): string {
  const upper = name.trim().toUpperCase();
  return upper.startsWith('CAP_') ? upper : `CAP_${upper}`;
}

/**
 * The container's capability sets as the CRI builds them: the default set; `add` joined to it
 * (`ALL`: every capability); then `drop` taken away (`ALL`: every one, after which only what
 * `add` named explicitly is put back). A process that runs as a user other than root keeps
 * none in its effective and permitted sets (the kernel clears them at exec), so only the
 * bounding set is meaningful then; the sets are written the same for every user, as runtimes do.
 */
export function containerCapabilities(context: SecurityContext | undefined): OciCapabilities {
  const add = (context?.capabilities?.add ?? []).map(ociName);
  const drop = (context?.capabilities?.drop ?? []).map(ociName);
  const named = add.filter((c) => c !== 'CAP_ALL');
  let set = new Set<string>(add.includes('CAP_ALL') ? ALL_CAPABILITIES : [...DEFAULT_CAPABILITIES, ...named]);
  if (drop.includes('CAP_ALL')) set = new Set(named);
  else for (const c of drop) set.delete(c);
  const list = [...set].sort();
  return { bounding: list, effective: list, permitted: list, inheritable: [], ambient: [] };
}
