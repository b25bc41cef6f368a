import type { OciCapabilities, OciLinuxResources, OciMount, OciNamespace, OciSeccomp, OciSpec } from './oci-types.js';

/** A bind mount of a host path into the container (a volume, the identity folder, a host-image directory). */
export interface BindMount {
  readonly source: string;
  readonly destination: string;
  readonly readOnly: boolean;
}

/** Everything the runtime decided about one container, ready to be written as its bundle's config.json. */
export interface ContainerLaunch {
  readonly rootfs: string;
  readonly readOnlyRootfs: boolean;
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string;
  readonly uid: number;
  readonly gid: number;
  readonly additionalGids: readonly number[];
  readonly terminal: boolean;
  readonly capabilities: OciCapabilities;
  readonly noNewPrivileges: boolean;
  readonly oomScoreAdj: number;
  readonly resources: OciLinuxResources;
  readonly cgroupsPath: string;
  /** The pod's network namespace (`/var/run/netns/<name>`). */
  readonly netns: string;
  /** The pod sandbox's IPC and UTS namespaces (`/proc/<infra pid>/ns/…`): the pod's containers share them, as in Kubernetes. */
  readonly ipcNamespace?: string;
  readonly utsNamespace?: string;
  /** `shareProcessNamespace`: the sandbox's PID namespace; otherwise the container gets its own. */
  readonly pidNamespace?: string;
  /** The hostname, set only when the container owns its UTS namespace (the sandbox itself). */
  readonly hostname?: string;
  /** The pod's /dev/shm (a tmpfs shared by its containers). */
  readonly shm?: string;
  readonly binds: readonly BindMount[];
  readonly sysctls?: Readonly<Record<string, string>>;
  /** The container's seccomp filter; none: unconfined (a privileged container, or a pod that asked for it where the site allows). */
  readonly seccomp?: OciSeccomp;
  readonly annotations: Readonly<Record<string, string>>;
}

const MASKED_PATHS = [
  '/proc/acpi',
  '/proc/asound',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
];
const READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** The kernel file systems every container sees (what runc's own `runc spec` sets up, with /sys read-only). */
function systemMounts(shm: string | undefined): OciMount[] {
  return [
    { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
    { destination: '/dev', type: 'tmpfs', source: 'tmpfs', options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'] },
    { destination: '/dev/pts', type: 'devpts', source: 'devpts', options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'] },
    shm === undefined
      ? { destination: '/dev/shm', type: 'tmpfs', source: 'shm', options: ['nosuid', 'noexec', 'nodev', 'mode=1777', 'size=65536k'] }
      : { destination: '/dev/shm', type: 'bind', source: shm, options: ['rbind', 'nosuid', 'noexec', 'nodev'] },
    { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['nosuid', 'noexec', 'nodev'] },
    { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', 'ro'] },
    { destination: '/sys/fs/cgroup', type: 'cgroup', source: 'cgroup', options: ['nosuid', 'noexec', 'nodev', 'relatime', 'ro'] },
  ];
}

function bindMount(bind: BindMount): OciMount {
  return { destination: bind.destination, type: 'bind', source: bind.source, options: ['rbind', 'rprivate', 'nosuid', 'nodev', bind.readOnly ? 'ro' : 'rw'] };
}

function namespaces(launch: ContainerLaunch): OciNamespace[] {
  const join = (type: OciNamespace['type'], path: string | undefined): OciNamespace => (path === undefined ? { type } : { type, path });
  // A cgroup namespace of its own: the container sees its cgroup as the root, never the host's hierarchy (no release_agent to reach).
  return [
    join('pid', launch.pidNamespace),
    { type: 'network', path: launch.netns },
    { type: 'mount' },
    join('ipc', launch.ipcNamespace),
    join('uts', launch.utsNamespace),
    { type: 'cgroup' },
  ];
}

/**
 * The OCI config.json of one container: its own mount namespace on the root file system it
 * was given, the pod's network namespace, the sandbox's IPC and UTS (and PID when shared), a cgroup namespace,
 * the kernel file systems, its binds in order (volumes after the system mounts, so a volume
 * may cover a path under /dev or /sys as kubelet allows), the capability sets, no new
 * privileges unless allowed, its seccomp filter, its cgroup and resources, and the paths runtimes mask.
 */
export function containerOciSpec(launch: ContainerLaunch): OciSpec {
  return {
    ociVersion: '1.0.2',
    process: {
      terminal: launch.terminal,
      user: { uid: launch.uid, gid: launch.gid, ...(launch.additionalGids.length === 0 ? {} : { additionalGids: launch.additionalGids }) },
      args: launch.args,
      env: launch.env,
      cwd: launch.cwd,
      capabilities: launch.capabilities,
      // No rlimits: a container inherits the agent's, as containers inherit containerd's.
      rlimits: [],
      noNewPrivileges: launch.noNewPrivileges,
      oomScoreAdj: launch.oomScoreAdj,
    },
    root: { path: launch.rootfs, readonly: launch.readOnlyRootfs },
    ...(launch.hostname === undefined ? {} : { hostname: launch.hostname }),
    mounts: [...systemMounts(launch.shm), ...launch.binds.map(bindMount)],
    annotations: launch.annotations,
    linux: {
      cgroupsPath: launch.cgroupsPath,
      namespaces: namespaces(launch),
      resources: launch.resources,
      maskedPaths: MASKED_PATHS,
      readonlyPaths: READONLY_PATHS,
      ...(launch.sysctls === undefined || Object.keys(launch.sysctls).length === 0 ? {} : { sysctl: launch.sysctls }),
      ...(launch.seccomp === undefined ? {} : { seccomp: launch.seccomp }),
    },
  };
}
