/**
 * The part of the OCI runtime specification (config.json, 1.0.2 — what runc 1.1 reads) that
 * the runc runtime writes. Field names are the specification's.
 */

export interface OciMount {
  readonly destination: string;
  readonly type: string;
  readonly source: string;
  readonly options: readonly string[];
}

export interface OciNamespace {
  readonly type: 'pid' | 'network' | 'mount' | 'ipc' | 'uts' | 'user' | 'cgroup';
  /** Join this namespace (a `/proc/<pid>/ns/<type>` or `/var/run/netns/<name>` path); absent makes a new one. */
  readonly path?: string;
}

export interface OciCapabilities {
  readonly bounding: readonly string[];
  readonly effective: readonly string[];
  readonly permitted: readonly string[];
  readonly inheritable: readonly string[];
  readonly ambient: readonly string[];
}

interface OciProcess {
  readonly terminal: boolean;
  readonly user: { readonly uid: number; readonly gid: number; readonly additionalGids?: readonly number[] };
  readonly args: readonly string[];
  readonly env: readonly string[];
  readonly cwd: string;
  readonly capabilities: OciCapabilities;
  readonly rlimits: readonly { readonly type: string; readonly hard: number; readonly soft: number }[];
  readonly noNewPrivileges: boolean;
  readonly oomScoreAdj: number;
}

export interface OciLinuxResources {
  readonly devices: readonly { readonly allow: boolean; readonly access: string }[];
  readonly memory?: { readonly limit: number; readonly swap?: number };
  readonly cpu?: { readonly shares?: number; readonly quota?: number; readonly period?: number };
  readonly pids?: { readonly limit: number };
}

/** One rule of `linux.seccomp`: these system calls get this action (when their arguments compare so). */
export interface OciSyscallRule {
  readonly names: readonly string[];
  readonly action: string;
  readonly errnoRet?: number;
  readonly args?: readonly { readonly index: number; readonly value: number; readonly valueTwo?: number; readonly op: string }[];
}

/** `linux.seccomp`: runc loads it as the container's filter (libseccomp), after no_new_privs. */
export interface OciSeccomp {
  readonly defaultAction: string;
  readonly defaultErrnoRet?: number;
  readonly architectures?: readonly string[];
  readonly flags?: readonly string[];
  readonly syscalls: readonly OciSyscallRule[];
}

export interface OciSpec {
  readonly ociVersion: string;
  readonly process: OciProcess;
  readonly root: { readonly path: string; readonly readonly: boolean };
  readonly hostname?: string;
  readonly mounts: readonly OciMount[];
  readonly annotations: Readonly<Record<string, string>>;
  readonly linux: {
    readonly cgroupsPath: string;
    readonly namespaces: readonly OciNamespace[];
    readonly resources: OciLinuxResources;
    readonly maskedPaths: readonly string[];
    readonly readonlyPaths: readonly string[];
    readonly sysctl?: Readonly<Record<string, string>>;
    readonly seccomp?: OciSeccomp;
  };
}
