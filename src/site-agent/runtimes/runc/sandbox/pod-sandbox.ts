import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { containerCapabilities } from '../containers/capabilities.js';
import { removeCgroup } from '../../../host/cgroup-tree.js';
import { containerOciSpec } from '../containers/container-spec.js';
import { containerResources } from '../containers/linux-resources.js';
import type { ContainerFiles, RuncContainers } from '../containers/runc-containers.js';
import type { SiteNetwork } from '../network/site-network.js';

/** A pod's sandbox: its network namespace and the infra process holding its IPC and UTS namespaces. */
export interface PodSandbox {
  readonly uid: string;
  readonly dir: string;
  readonly infraId: string;
  readonly infraPid: number;
  readonly netnsPath: string;
  readonly address: string;
  /** The pod's cgroup; its containers' cgroups are beneath it. */
  readonly cgroup: string;
}

export interface PodSandboxSpec {
  readonly uid: string;
  /** The pod's hostname (its name, as kubelet sets it). */
  readonly hostname: string;
  readonly address: number;
}

/** The folders of one container (or the infra process) inside its pod's folder. */
export function containerFiles(podDir: string, name: string): ContainerFiles {
  const base = join(podDir, 'containers', name);
  return { bundle: join(base, 'bundle'), log: join(base, 'container.log'), exitDir: join(base, 'exit'), persistDir: join(base, 'state'), socketDir: join(base, 'sockets') };
}

export async function makeContainerFolders(files: ContainerFiles): Promise<void> {
  for (const dir of [files.bundle, files.exitDir, files.persistDir, files.socketDir]) await mkdir(dir, { recursive: true, mode: 0o700 });
}

/** runc ids of a pod: a short, stable prefix from its uid. */
export function podContainerId(uid: string, name: string): string {
  return `${uid.replace(/[^a-zA-Z0-9]/g, '').slice(0, 12)}-${name}`;
}

/**
 * Pod sandboxes as podman makes them: a network namespace joined to the site bridge, and an
 * infra container running catatonit in pause mode that owns the pod's IPC and UTS namespaces
 * (the pod's hostname) so its containers can come and go. The infra process has no
 * capabilities and a read-only root holding only catatonit.
 */
export class PodSandboxes {
  constructor(
    private readonly options: {
      readonly containers: RuncContainers;
      readonly network: SiteNetwork;
      /** The catatonit binary (static), bound into the infra container. */
      readonly catatonit: string;
      readonly podsDir: string;
      /** The site's cgroup parent, e.g. `/edgeplane/<site>`. */
      readonly cgroupParent: string;
      /** See `oomScoreFloor()`. */
      readonly oomScoreFloor: number;
    },
  ) {}

  podDir(uid: string): string {
    return join(this.options.podsDir, uid);
  }

  async create(spec: PodSandboxSpec): Promise<PodSandbox> {
    const { containers, network } = this.options;
    const dir = this.podDir(spec.uid);
    const attachment = await network.attach(spec.uid, spec.address);
    const infraId = podContainerId(spec.uid, 'infra');
    const files = containerFiles(dir, 'infra');
    await makeContainerFolders(files);
    const rootfs = join(dir, 'infra-root');
    await mkdir(join(rootfs, 'proc'), { recursive: true });
    for (const dir of ['dev', 'sys']) await mkdir(join(rootfs, dir), { recursive: true });
    await writeFile(join(rootfs, 'catatonit'), '', { mode: 0o755 });
    const cgroup = `${this.options.cgroupParent}/${spec.uid}`;
    const ociSpec = containerOciSpec({
      rootfs,
      readOnlyRootfs: true,
      args: ['/catatonit', '-P'],
      env: [],
      cwd: '/',
      uid: 0,
      gid: 0,
      additionalGids: [],
      terminal: false,
      capabilities: containerCapabilities({ capabilities: { drop: ['ALL'] } }),
      noNewPrivileges: true,
      oomScoreAdj: Math.max(-998, this.options.oomScoreFloor),
      resources: containerResources(undefined, 16),
      cgroupsPath: `${cgroup}/infra`,
      netns: attachment.netnsPath,
      hostname: spec.hostname,
      binds: [{ source: this.options.catatonit, destination: '/catatonit', readOnly: true }],
      annotations: { 'io.kubernetes.cri.container-type': 'sandbox', 'io.kubernetes.pod.uid': spec.uid },
    });
    await writeFile(join(files.bundle, 'config.json'), JSON.stringify(ociSpec));
    try {
      const infraPid = await containers.create(infraId, files);
      await containers.start(infraId);
      return { uid: spec.uid, dir, infraId, infraPid, netnsPath: attachment.netnsPath, address: attachment.address, cgroup };
    } catch (error) {
      await this.remove(spec.uid);
      throw error;
    }
  }

  /** Stops the infra process and removes the namespace, the pod's cgroups and folder; containers must be gone. Idempotent. */
  async remove(uid: string): Promise<void> {
    const { containers, network } = this.options;
    await containers.delete(podContainerId(uid, 'infra'), true).catch(() => undefined);
    await network.detach(uid);
    await removeCgroup(`${this.options.cgroupParent}/${uid}/infra`);
    await removeCgroup(`${this.options.cgroupParent}/${uid}`);
    await rm(this.podDir(uid), { recursive: true, force: true });
  }
}
