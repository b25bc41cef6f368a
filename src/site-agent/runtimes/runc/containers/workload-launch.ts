import { evaluatePodSecurity, forbiddenDetail } from '../../../../api/pod-security/index.js';
import type { QosClass } from '../../../../api/pod-spec-qos.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { containerCapabilities } from './capabilities.js';
import { ContainerConfigError } from './container-env.js';
import type { BindMount, ContainerLaunch, SeccompHost } from '../oci/index.js';
import { containerResources, memoryRequestBytes, oomScoreAdjust } from './linux-resources.js';
import { seccompFilter, type SeccompSource } from './seccomp-choice.js';

/** The default command and user of what a container runs on (an image's config; nothing for the host image). */
interface ImageDefaults {
  readonly entrypoint?: readonly string[];
  readonly cmd?: readonly string[];
  readonly env?: readonly string[];
  readonly workingDir?: string;
  readonly user?: string;
}

/** What the runtime prepared for the container before its launch is decided. */
export interface LaunchContext {
  readonly rootfs: string;
  readonly image: ImageDefaults;
  readonly env: ReadonlyMap<string, string>;
  readonly binds: readonly BindMount[];
  readonly netnsPath: string;
  readonly infraPid: number;
  readonly cgroupsPath: string;
  readonly hostname: string;
  readonly qosClass: QosClass;
  readonly machineMemoryBytes: number;
  readonly oomScoreFloor: number;
  /** Whether the site runs what Pod Security baseline forbids (a tenant's customer edge); regional edges do not. */
  readonly allowPrivileged: boolean;
  /** The seccomp profile the container asked for (RuntimeDefault unless it asked otherwise), and what its conditions are read against. */
  readonly seccomp: SeccompSource;
  readonly host: SeccompHost;
  readonly annotations: Readonly<Record<string, string>>;
}

const DEFAULT_PATH = 'PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** The most processes one container may run (a fork bomb stops here, not at the site's limit). */
const PIDS_LIMIT = 4096;

/**
 * Why a regional edge refuses to run a container: what the pod does that Pod Security
 * baseline forbids, seen from this container (the pod's own fields and this container's),
 * however the pod reached the site. The API refuses such templates already; this holds
 * for a cluster whose floor was lifted, or a pod that reached the site another way. Pure.
 */
export function baselineRefusal(spec: PodSpec, container: Container): string | undefined {
  const view = { annotations: {}, spec: { ...spec, initContainers: [], containers: [container] } };
  const found = evaluatePodSecurity({ level: 'baseline' }, view);
  if (found.length === 0) return undefined;
  return `regional edge sites run only pods that meet Pod Security baseline: violates PodSecurity "baseline:latest": ${forbiddenDetail(found)}`;
}

const optional = <K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } => (value === undefined ? {} : ({ [key]: value } as { [P in K]?: V }));

/**
 * The process a container runs, as the CRI resolves it: `command` replaces the image's
 * entrypoint and drops its cmd; `args` replace the cmd. Nothing to run is a config error.
 */
export function containerArgs(container: Container, image: ImageDefaults): string[] {
  const command = (container['command'] as string[] | null | undefined) ?? undefined;
  const args = (container['args'] as string[] | null | undefined) ?? undefined;
  const entry = command !== undefined && command.length > 0 ? command : [...(image.entrypoint ?? [])];
  const rest = args !== undefined && args.length > 0 ? args : command !== undefined && command.length > 0 ? [] : [...(image.cmd ?? [])];
  const all = [...entry, ...rest];
  if (all.length === 0) throw new ContainerConfigError('no command specified: the image has no default command; give the container a command');
  return all;
}

function imageUser(user: string | undefined): { uid?: number; gid?: number } {
  const match = /^(\d+)(?::(\d+))?$/.exec(user ?? '');
  if (match === null) return {};
  return { uid: Number(match[1]), ...(match[2] === undefined ? {} : { gid: Number(match[2]) }) };
}

/**
 * The user a container's processes run as: its security context's `runAsUser`, else the pod's,
 * else the image's numeric user, else root; undefined when the image names its user (a
 * container that cannot start: see {@link workloadLaunch}). Pure.
 */
export function containerUid(spec: PodSpec, container: Container, imageUserName: string | undefined): number | undefined {
  const given = container.securityContext?.runAsUser ?? spec.securityContext?.runAsUser;
  if (given !== undefined) return given;
  if (imageUserName === undefined || imageUserName === '') return 0;
  return imageUser(imageUserName).uid;
}

/**
 * A workload container's launch: its process (args, environment over the image's, working
 * directory, user and groups from the container's then the pod's security context, then the
 * image's numeric user), capabilities, no-new-privileges, resources, OOM score, and the
 * sandbox's network, IPC and UTS namespaces (PID too with shareProcessNamespace), a terminal
 * with `tty` (conmon then gets runc's console), its seccomp filter (see `seccomp-choice.ts`). Privileged
 * containers get every capability where the site allows them. Pure.
 */
export function workloadLaunch(spec: PodSpec, container: Container, context: LaunchContext): ContainerLaunch {
  const security = container.securityContext;
  const podSecurity = spec.securityContext;
  const privileged = security?.privileged === true;
  const refusal = context.allowPrivileged ? undefined : baselineRefusal(spec, container);
  if (refusal !== undefined) throw new ContainerConfigError(refusal);
  const fromImage = imageUser(context.image.user);
  const uid = containerUid(spec, container, context.image.user);
  if (uid === undefined) throw new ContainerConfigError(`the image's user "${context.image.user ?? ''}" is not numeric: give runAsUser`);
  const gid = security?.runAsGroup ?? podSecurity?.runAsGroup ?? fromImage.gid ?? 0;
  const groups = [...(podSecurity?.supplementalGroups ?? []), ...(podSecurity?.fsGroup === undefined ? [] : [podSecurity.fsGroup])];
  const runAsNonRoot = (security?.['runAsNonRoot'] ?? podSecurity?.['runAsNonRoot']) === true;
  if (runAsNonRoot && uid === 0) throw new ContainerConfigError('container has runAsNonRoot and image will run as root');
  const imageEnv = context.image.env ?? [DEFAULT_PATH];
  const env = new Map(imageEnv.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const));
  env.set('HOSTNAME', context.hostname);
  for (const [name, value] of context.env) env.set(name, value);
  const adjust = oomScoreAdjust(context.qosClass, memoryRequestBytes(container.resources), context.machineMemoryBytes);
  const capabilities = privileged ? containerCapabilities({ capabilities: { add: ['ALL'] } }) : containerCapabilities(security);
  const ns = (kind: string): string => `/proc/${context.infraPid}/ns/${kind}`;
  return {
    rootfs: context.rootfs,
    readOnlyRootfs: security?.['readOnlyRootFilesystem'] === true,
    args: containerArgs(container, context.image),
    env: [...env].map(([name, value]) => `${name}=${value}`),
    cwd: (container['workingDir'] as string | undefined) || context.image.workingDir || '/',
    uid,
    gid,
    additionalGids: [...new Set(groups)],
    terminal: container['tty'] === true,
    capabilities,
    noNewPrivileges: !privileged && security?.allowPrivilegeEscalation === false,
    ...optional('seccomp', seccompFilter(context.seccomp, context.host, capabilities.bounding, privileged)),
    oomScoreAdj: Math.max(context.oomScoreFloor, adjust),
    resources: containerResources(container.resources, PIDS_LIMIT),
    cgroupsPath: context.cgroupsPath,
    netns: context.netnsPath,
    ipcNamespace: ns('ipc'),
    utsNamespace: ns('uts'),
    ...(spec.shareProcessNamespace === true ? { pidNamespace: ns('pid') } : {}),
    binds: context.binds,
    annotations: context.annotations,
  };
}
