import { chmod, mkdir, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PodSpec } from '../../../../api/pod-spec-types.js';
import type { ClusterRef } from '../../../../apimachinery/cluster-ref.js';
import { containerCapabilities, containerFiles, containerResources, makeContainerFolders, podContainerId, seccompFilter, type RuncContainers } from '../containers/index.js';
import { limitPids, mountsUnder, readMountTable, removeCgroup } from '../../../host/index.js';
import { containerOciSpec, type IdRange, type SeccompHost } from '../oci/index.js';
import type { SiteType } from '../../../../site-api/site-model.js';
import type { AddressLeases, PodOwner, SiteNetwork } from '../network/index.js';
import { podHostsFile } from './pod-hosts.js';
import { writePodResolvConf } from './pod-dns-files.js';
import { podSysctls } from './pod-sysctls.js';
import type { SiteUserRanges } from './user-range-claims.js';
import { runsInUserNamespace } from './user-ranges.js';

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
  /** The host ids of the pod's user namespace (its infra process owns it, and the pod's network namespace); none: the host's users. */
  readonly userRange?: IdRange;
}

export interface PodSandboxSpec {
  readonly uid: string;
  /** The pod's hostname (its name, as kubelet sets it). */
  readonly hostname: string;
  readonly address: number;
  /** The pod's virtual cluster and name: the site's filter lets it reach its own cluster only. */
  readonly owner: PodOwner;
  /** Set in the pod's namespaces before anything runs in them (see `podSysctls`). */
  readonly sysctls: Readonly<Record<string, string>>;
  /** Run the pod in a user namespace of these host ids. */
  readonly userRange?: IdRange;
}

/** A pod's sandbox as the CRI's PodSandboxConfig describes it. */
export interface PodSandboxRequest {
  readonly uid: string;
  /** The pod's name: its hostname (its first 63 characters) and its /etc/hosts entry. */
  readonly name: string;
  /** Its Kubernetes namespace (the site filter's counters name the pod by it). */
  readonly namespace: string;
  /** Its `dnsPolicy` and `dnsConfig` decide its resolv.conf. */
  readonly spec: PodSpec;
  readonly cluster: ClusterRef;
  /** Hears the pod's address as soon as it has one, before its name server is asked for (which lets that address reach the cluster's Services). */
  readonly onAddress?: (ip: string) => void;
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
      /** `pids.max` of each pod's cgroup: its containers together. */
      readonly podPidsLimit: number;
      /** The site's pod addresses. */
      readonly leases: AddressLeases;
      /** Whether pods may set namespaced sysctls beyond the safe ones (a site that runs what Pod Security baseline forbids). */
      readonly allowUnsafeSysctls: boolean;
      /** This machine, for the infra process's seccomp filter. */
      readonly seccompHost: SeccompHost;
      /**
       * The name server of a pod's virtual cluster on the site, running when this resolves (the
       * site's Service data plane, which also lets the pod's address reach its cluster's
       * Services); absent when the site has no Service data plane (containers keep their
       * image's resolv.conf).
       */
      readonly nameserverFor?: (cluster: ClusterRef, podIP: string) => Promise<string>;
      /** The site's type: a regional edge runs every pod in a user namespace (`runsInUserNamespace`). */
      readonly siteType: SiteType;
      /** The user namespace ids of the site's virtual clusters. */
      readonly userRanges: SiteUserRanges;
      /** Why this site cannot run user-namespaced pods (its folders shut out the pods' root), if it cannot. */
      readonly userNamespaceBlocker?: string;
    },
  ) {}

  /**
   * kubelet's RunPodSandbox: the pod's sysctls checked (a forbidden one throws
   * SysctlForbiddenError before anything is made), its folder, its address, its sandbox
   * ({@link create}), then the pod's /etc/hosts and /etc/resolv.conf (bound read-only into
   * its containers). The sandbox comes up whole or not at all: a failure removes what was made.
   */
  async run(request: PodSandboxRequest): Promise<PodSandbox> {
    const userRange = runsInUserNamespace(request.spec, this.options.siteType) ? await this.userRangeFor(request.cluster) : undefined;
    const sysctls = podSysctls(request.spec, this.options.allowUnsafeSysctls, userRange?.size);
    const address = await this.options.leases.lease(request.uid);
    const dir = this.podDir(request.uid);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const owner = { cluster: request.cluster, namespace: request.namespace, name: request.name };
    const hostname = request.name.slice(0, 63);
    const sandbox = await this.create({ uid: request.uid, hostname, address, owner, sysctls, ...(userRange === undefined ? {} : { userRange }) });
    try {
      request.onAddress?.(sandbox.address);
      await writeFile(join(dir, 'etc-hosts'), podHostsFile(sandbox.address, request.name), { mode: 0o644 });
      const { nameserverFor } = this.options;
      if (nameserverFor !== undefined) await writePodResolvConf(dir, request.spec, request.cluster, (cluster) => nameserverFor(cluster, sandbox.address));
      return sandbox;
    } catch (error) {
      await this.remove(request.uid);
      throw error;
    }
  }

  private async userRangeFor(cluster: ClusterRef): Promise<IdRange> {
    if (this.options.userNamespaceBlocker !== undefined) throw new Error(this.options.userNamespaceBlocker);
    return this.options.userRanges.rangeFor(cluster);
  }

  podDir(uid: string): string {
    return join(this.options.podsDir, uid);
  }

  async create(spec: PodSandboxSpec): Promise<PodSandbox> {
    const { containers, network } = this.options;
    const dir = this.podDir(spec.uid);
    const { userRange } = spec;
    // A user-namespaced pod's infra process makes the pod's network namespace in the pod's user namespace (runc joins a user namespace
    // before a network namespace, and may join only one that user namespace owns); it is attached once the process exists.
    const early = userRange === undefined ? await network.attach(spec.uid, spec.address, spec.owner) : undefined;
    const infraId = podContainerId(spec.uid, 'infra');
    const files = containerFiles(dir, 'infra');
    if (userRange !== undefined) await openToUserNamespace(dir);
    await makeContainerFolders(files);
    const rootfs = join(dir, 'infra-root');
    await mkdir(join(rootfs, 'proc'), { recursive: true });
    for (const dir of ['dev', 'sys']) await mkdir(join(rootfs, dir), { recursive: true });
    await writeFile(join(rootfs, 'catatonit'), '', { mode: 0o755 });
    const cgroup = `${this.options.cgroupParent}/${spec.uid}`;
    await limitPids(cgroup, this.options.podPidsLimit);
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
      seccomp: seccompFilter({ type: 'RuntimeDefault' }, this.options.seccompHost, [], false),
      oomScoreAdj: Math.max(-998, this.options.oomScoreFloor),
      resources: containerResources(undefined, 16),
      cgroupsPath: `${cgroup}/infra`,
      ...(early === undefined ? {} : { netns: early.netnsPath }),
      ...(userRange === undefined ? {} : { userNamespace: { range: userRange } }),
      hostname: spec.hostname,
      binds: [{ source: this.options.catatonit, destination: '/catatonit', readOnly: true }],
      sysctls: spec.sysctls,
      annotations: { 'io.kubernetes.cri.container-type': 'sandbox', 'io.kubernetes.pod.uid': spec.uid },
    });
    await writeFile(join(files.bundle, 'config.json'), JSON.stringify(ociSpec));
    try {
      const infraPid = await containers.create(infraId, files);
      const attachment = early ?? (await network.attach(spec.uid, spec.address, spec.owner, infraPid));
      await containers.start(infraId);
      const { netnsPath, address } = attachment;
      return { uid: spec.uid, dir, infraId, infraPid, netnsPath, address, cgroup, ...(userRange === undefined ? {} : { userRange }) };
    } catch (error) {
      await this.remove(spec.uid);
      throw error;
    }
  }

  /**
   * A sandbox an earlier agent made, taken over with its pod (kubelet keeps running sandboxes
   * across restarts): the site's filter holds it again if it did not (see `SiteNetwork.adopt`).
   */
  async adopt(sandbox: Pick<PodSandbox, 'uid' | 'address'>, owner: PodOwner): Promise<void> {
    await this.options.network.adopt(sandbox.uid, sandbox.address, owner);
  }

  /**
   * Stops the infra process and removes the namespace (and its place in the site's filter), the
   * pod's cgroups, folder and address lease; containers must be gone and the pod's mounts
   * undone. Idempotent. A folder with something still mounted below it is kept (and the call
   * fails): removing it would reach through the mount — into a claim's data bound there by subPath.
   */
  async remove(uid: string): Promise<void> {
    const { containers, network } = this.options;
    await containers.delete(podContainerId(uid, 'infra'), true).catch(() => undefined);
    await network.detach(uid);
    await removeCgroup(`${this.options.cgroupParent}/${uid}/infra`);
    await removeCgroup(`${this.options.cgroupParent}/${uid}`);
    const dir = await realpath(this.podDir(uid)).catch(() => undefined);
    const mounted = dir === undefined ? [] : mountsUnder(await readMountTable(), dir);
    if (mounted.length > 0) throw new Error(`pod folder ${dir ?? ''} kept: still mounted below it: ${mounted.map((entry) => entry.mountPoint).join(', ')}`);
    await rm(this.podDir(uid), { recursive: true, force: true });
    await this.options.leases.release(uid);
  }
}

/**
 * What a user-namespaced pod's runc needs of the pod's folder: runc mounts a container's root
 * from inside the pod's user namespace, as its root (a host id of the range, no capability on
 * the host), so the folders above each root must let others pass (0711, as containerd's task
 * folders; nothing is listed), and the pod's own `containers` folder with them. Bind sources
 * are opened by runc on the host's side and need nothing.
 */
async function openToUserNamespace(podDir: string): Promise<void> {
  await chmod(podDir, 0o711);
  await mkdir(join(podDir, 'containers'), { recursive: true, mode: 0o711 });
  await chmod(join(podDir, 'containers'), 0o711);
}
