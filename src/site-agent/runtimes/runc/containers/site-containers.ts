import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { QosClass } from '../../../../api/pod-spec-qos.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import type { ResolvedImage, SiteImages } from '../images/index.js';
import { containerOciSpec, parseSeccompTemplate, type BindMount, type IdRange, type SeccompHost } from '../oci/index.js';
import { containerFiles, instanceDir, makeContainerFolders, podContainerId, type ContainerInstance } from './container-instance.js';
import { ContainerConfigError } from './container-env.js';
import type { ContainerStdio } from './container-stdio.js';
import type { RuncContainers } from './runc-containers.js';
import { localhostProfilePath, type SeccompChoice, type SeccompSource } from './seccomp-choice.js';
import { workloadLaunch } from './workload-launch.js';

/** The sandbox a container joins: its namespaces and its pod's cgroup. */
interface SandboxRef {
  readonly netnsPath: string;
  readonly infraPid: number;
  readonly cgroup: string;
  /** The host ids of the pod's user namespace; none: the host's users. */
  readonly userRange?: IdRange;
}

/** One container instance to create (the CRI's ContainerConfig, as far as a runc site needs it). */
export interface ContainerRequest {
  readonly podUid: string;
  readonly podName: string;
  readonly podDir: string;
  /** The pod's spec as this container's launch reads it (the sidecar's: without the workload's security context). */
  readonly podSpec: PodSpec;
  /** The container as the pod names it (its name and security context). */
  readonly container: Container;
  /** What to run: the container itself, or the sidecar's command line in its place. */
  readonly launched: Container;
  /** The image from the site's store; undefined: the host's programs. */
  readonly image: ResolvedImage | undefined;
  /** Which start of the container this is (0 the first): names its runc id, folder and cgroup. */
  readonly restart: number;
  readonly binds: readonly BindMount[];
  readonly env: ReadonlyMap<string, string>;
  /** The seccomp profile it asked for (see `seccompChoice`). */
  readonly seccomp: SeccompChoice;
  readonly sandbox: SandboxRef;
  readonly qosClass: QosClass;
  readonly stdio: ContainerStdio;
}

export interface SiteContainersOptions {
  readonly runc: RuncContainers;
  readonly images: SiteImages;
  /** Regional edge sites refuse privileged containers. */
  readonly allowPrivileged: boolean;
  /** The machine's memory (Burstable containers' OOM scores). */
  readonly machineMemoryBytes: number;
  /** See `oomScoreFloor()`. */
  readonly oomScoreFloor: number;
  /** This machine, as seccomp profiles' conditions read it. */
  readonly seccompHost: SeccompHost;
  /** The folder of the site's Localhost seccomp profiles (kubelet's `<root-dir>/seccomp`): the administrator's, never a tenant's. */
  readonly seccompProfileRoot: string;
}

/**
 * A runc site's containers as the CRI's runtime service has them: create an instance (its root
 * over the image, its OCI bundle from the pod's spec, `runc create` under conmon), start it,
 * and remove it with its root; `runc` is the site's runc under conmon for the rest (kill,
 * exec, state).
 */
export class SiteContainers {
  readonly runc: RuncContainers;

  constructor(private readonly options: SiteContainersOptions) {
    this.runc = options.runc;
  }

  /** The runc id of the `restart`-th start of a pod's container. */
  static idOf(podUid: string, name: string, restart: number): string {
    return podContainerId(podUid, `${name}-${restart}`);
  }

  /**
   * Creates the instance: its root, its bundle (`config.json`, 0600), then `runc create`
   * under a new conmon. A launch the spec cannot make throws ContainerConfigError before
   * anything runs; runc's refusal throws ContainerCommandError. The instance's process waits
   * for {@link start}, so its exit may be watched before it runs.
   */
  async create(request: ContainerRequest): Promise<Omit<ContainerInstance, 'startedAt'>> {
    const { images, runc } = this.options;
    const { container, image, binds } = request;
    const name = container.name ?? '';
    const id = SiteContainers.idOf(request.podUid, name, request.restart);
    const files = containerFiles(request.podDir, `${name}/${request.restart}`);
    const readOnlyRoot = container.securityContext?.['readOnlyRootFilesystem'] === true;
    const { userRange } = request.sandbox;
    const root = await images.makeRoot(image, instanceDir(request.podDir, name, request.restart), readOnlyRoot, binds, userRange);
    const launch = workloadLaunch(request.podSpec, request.launched, {
      rootfs: root.rootfs,
      image: image?.config ?? {},
      env: request.env,
      binds: [...root.binds, ...binds],
      netnsPath: request.sandbox.netnsPath,
      infraPid: request.sandbox.infraPid,
      ...(userRange === undefined ? {} : { userRange }),
      cgroupsPath: `${request.sandbox.cgroup}/${name}-${request.restart}`,
      hostname: request.podName.slice(0, 63),
      qosClass: request.qosClass,
      machineMemoryBytes: this.options.machineMemoryBytes,
      oomScoreFloor: this.options.oomScoreFloor,
      allowPrivileged: this.options.allowPrivileged,
      seccomp: await this.seccompSource(request.seccomp),
      host: this.options.seccompHost,
      annotations: { 'io.kubernetes.pod.uid': request.podUid, 'io.kubernetes.container.name': name },
    });
    await makeContainerFolders(files);
    await writeFile(join(files.bundle, 'config.json'), JSON.stringify(containerOciSpec(launch)), { mode: 0o600 });
    await runc.create(id, files, request.stdio);
    return { id, files, ...(root.overlay === undefined ? {} : { root: root.overlay }) };
  }

  /** The profile a choice names, a Localhost one read from the site's profile folder (a missing or malformed one is a config error). */
  private async seccompSource(choice: SeccompChoice): Promise<SeccompSource> {
    if (choice.type !== 'Localhost') return choice;
    const path = join(this.options.seccompProfileRoot, localhostProfilePath(choice.localhostProfile));
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new ContainerConfigError(`cannot load seccomp profile "${choice.localhostProfile}" from the site's profile folder: ${code}`);
    }
    try {
      return { type: 'Localhost', template: parseSeccompTemplate(text) };
    } catch (error) {
      throw new ContainerConfigError(`seccomp profile "${choice.localhostProfile}" is not valid: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  start(instance: ContainerInstance): Promise<void> {
    return this.options.runc.start(instance.id);
  }

  /** Whether conmon has recorded the instance's exit (a cheap check, for the relist). */
  exited(instance: ContainerInstance): boolean {
    return existsSync(join(instance.files.exitDir, instance.id));
  }

  /** How the instance ended, once it has: its exit code, and whether the kernel's OOM killer ended it. */
  async exit(instance: ContainerInstance): Promise<{ readonly exitCode: number; readonly oomKilled: boolean } | undefined> {
    const exitCode = await this.options.runc.exitCode(instance.id, instance.files);
    if (exitCode === undefined) return undefined;
    return { exitCode, oomKilled: await this.options.runc.oomKilled(instance.files) };
  }

  /** Removes the instance (by force: it may still run) and unmounts its root. */
  async remove(instance: ContainerInstance): Promise<void> {
    await this.options.runc.delete(instance.id, true).catch(() => undefined);
    if (instance.root !== undefined) await this.options.images.removeRoot(instance.root);
  }
}
