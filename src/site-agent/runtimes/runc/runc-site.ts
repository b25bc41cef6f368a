import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import { release } from 'node:os';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import type { ClusterRef } from '../../../apimachinery/cluster-ref.js';
import type { Logger } from '../../../observability/logger.js';
import type { PodRef, RegisterSite } from '../../../site-api/site-api-types.js';
import { hostPidMax, IpCommand, limitPids, removeCgroup, sitePidsCeiling } from '../../host/index.js';
import { conmonLogSizeMax, DEFAULT_LOG_ROTATION, RuncContainers, SiteContainers, type LogRotationPolicy } from './containers/index.js';
import { goArch } from './oci/index.js';
import { hostImagePlan, ImageStore, inspectHost, siteImageStoreDir, SiteImages } from './images/index.js';
import {
  AddressLeases,
  claimSiteCidr,
  ControlPlaneRelay,
  NetnsSocketBroker,
  parseCidr,
  RELAY_PORT,
  releaseSiteCidr,
  SiteNetwork,
  siteNamespaceName,
  type Ipv4Cidr,
  type SiteFirewall,
} from './network/index.js';
import type { RuncSite } from './pod-worker/index.js';
import type { RuntimePrograms } from './runtime-programs.js';
import { PodSandboxes, releaseUserRangeClaims, SiteUserRanges } from './sandbox/index.js';
import { SidecarLauncher, type SidecarInstallation } from './sidecar/index.js';
import { MountCommand, PodVolumes } from './volumes/index.js';

export interface RuncSiteOptions {
  /** The agent's home: the site's pods live under `<home>/runc/<site>/`. */
  readonly home: string;
  readonly site: RegisterSite;
  readonly programs: RuntimePrograms;
  /** The site's pod CIDR (default: a free 10.244.n.0/24 of this machine). */
  readonly podCidr?: string;
  readonly hostImage: boolean;
  /** Opens a connection to the control plane's pod-facing API (the site API's pod relay); the gateway's relay pipes each pod connection into one. */
  readonly podRelay: () => Promise<Duplex>;
  /** The sidecar's installation, and the bootstrap tokens of pods' sidecars (the site API). */
  readonly sidecar: SidecarInstallation;
  readonly identityToken: (pod: PodRef) => Promise<string>;
  /** The name server of a pod's virtual cluster on this site (the site's Service data plane), if it has one. */
  readonly nameserverFor?: (cluster: ClusterRef, podIP: string) => Promise<string>;
  readonly machineMemoryBytes: number;
  readonly oomScoreFloor: number;
  /** The most processes one pod may hold, all its containers together (kubelet's podPidsLimit; default 4096). */
  readonly podPidsLimit?: number;
  /** The most processes the site's pods may hold together (default: the host's pid_max less a reserve, `sitePidsCeiling`). */
  readonly sitePidsLimit?: number;
  /** How containers' logs rotate (what is not given: kubelet's 10 MiB, 5 files); conmon caps each file at twice the size. */
  readonly containerLogs?: Partial<LogRotationPolicy>;
  /** The folder of the Localhost seccomp profiles pods may name (default `<home>/seccomp`, as kubelet's `<root-dir>/seccomp`). */
  readonly seccompProfileRoot?: string;
  readonly logger: Logger;
}

/** kubelet's podPidsLimit here: a pod's containers together (a fork bomb stops at its own pod). */
const DEFAULT_POD_PIDS_LIMIT = 4096;

/** An open runc site: its services, and what the runtime does with it when the agent stops. */
export interface OpenRuncSite extends RuncSite {
  /** The site's network namespace and pod CIDR (its Service data plane runs in it), and its packet filter. */
  readonly network: { readonly netns: string; readonly cidr: Ipv4Cidr; readonly filter: SiteFirewall };
  /** The folder of the site's pods (`<uid>/` each) and of its persistent volumes. */
  readonly podsDir: string;
  readonly pvRoot: string;
  /** The site's runc and the `ip` it runs (the pods' streams). */
  readonly ipPath: string;
  /** Stops the relay and the socket broker; the pods keep running. */
  close(): void;
  /** After close, with every pod gone: removes the site's network, cgroup parent, runc state and CIDR claim. */
  destroy(): Promise<void>;
}

/** Where a runc site keeps runc's state: on tmpfs, as runc's own default `/run/runc`. */
export function runcStateRoot(siteNetns: string): string {
  return `/run/edgeplane/runc/${siteNetns}`;
}

/** The cgroup parent of a site's pods. */
export function siteCgroupParent(siteNetns: string): string {
  return `/edgeplane/${siteNetns}`;
}

/**
 * Why pods of this site cannot run in a user namespace, if they cannot: runc mounts a root from
 * inside the pod's user namespace, so every folder above the site's pods must let others pass
 * (o+x). The site's own folders are made so (0711: nothing is listed); the agent's home and
 * what is above it are the operator's.
 */
async function userNamespaceBlocker(siteDir: string, podsDir: string): Promise<string | undefined> {
  for (const dir of [join(siteDir, '..'), siteDir, podsDir]) await chmod(dir, 0o711);
  for (let dir = dirname(join(siteDir, '..')); ; dir = dirname(dir)) {
    const mode = (await stat(dir)).mode;
    if ((mode & 0o001) === 0) return `pods in a user namespace need every folder above the site's pods to let others pass (o+x, as 0711): ${dir} does not`;
    if (dir === '/') return undefined;
  }
}

/**
 * Opens one runc site: its network namespace, bridge, packet filter and pod CIDR, the socket broker in it,
 * the relay to the control plane on its gateway, and the services its pods' workers use —
 * sandboxes, containers, images, volumes, the sidecar. An existing network (an earlier start)
 * is kept as it is.
 */
export async function openRuncSite(options: RuncSiteOptions): Promise<OpenRuncSite> {
  const { programs, site } = options;
  const netns = siteNamespaceName(options.home, site.name);
  const cidr: Ipv4Cidr = options.podCidr === undefined ? await claimSiteCidr(netns) : parseCidr(options.podCidr);
  const siteDir = join(options.home, 'runc', site.name);
  await mkdir(siteDir, { recursive: true, mode: 0o700 });
  const filterStateFile = join(siteDir, 'network-filter.json');
  const network = new SiteNetwork({ ip: new IpCommand(programs.ip), nft: programs.nft, netns, cidr, filterStateFile, logger: options.logger });
  await network.ensure();
  const broker = new NetnsSocketBroker(programs.ip, netns);
  const relay = new ControlPlaneRelay(broker, options.podRelay, options.logger);
  await relay.listen(network.gateway);
  const podsDir = join(siteDir, 'pods');
  await mkdir(podsDir, { recursive: true, mode: 0o700 });
  const seccompHost = { arch: goArch(process.arch), kernel: release() };
  const sitePids = options.sitePidsLimit ?? sitePidsCeiling(await hostPidMax());
  await limitPids(siteCgroupParent(netns), sitePids);
  const logRotation: LogRotationPolicy = { ...DEFAULT_LOG_ROTATION, ...options.containerLogs };
  const runc = new RuncContainers(programs.runc, programs.conmon, runcStateRoot(netns), conmonLogSizeMax(logRotation));
  const images = new SiteImages(new ImageStore({ dir: siteImageStoreDir(options.home), umoci: programs.umoci }), options.hostImage, hostImagePlan(inspectHost));
  const pvRoot = join(siteDir, 'persistent-volumes');
  const userRanges = new SiteUserRanges(siteDir, netns);
  const blocker = await userNamespaceBlocker(siteDir, podsDir);
  if (blocker !== undefined) options.logger.warn({ site: site.name, reason: blocker }, 'this site cannot run pods in a user namespace');
  options.logger.info({ site: site.name, network: network.describe(), hostImage: options.hostImage, sitePids }, 'runc site ready');
  return {
    name: site.name,
    type: site.type,
    hostIP: network.gateway,
    network: { netns, cidr, filter: network.filter },
    podsDir,
    pvRoot,
    ipPath: programs.ip,
    sandboxes: new PodSandboxes({
      containers: runc,
      network,
      catatonit: programs.catatonit,
      podsDir,
      cgroupParent: siteCgroupParent(netns),
      oomScoreFloor: options.oomScoreFloor,
      podPidsLimit: options.podPidsLimit ?? DEFAULT_POD_PIDS_LIMIT,
      leases: new AddressLeases(join(siteDir, 'addresses'), cidr),
      allowUnsafeSysctls: site.type !== 'REGIONAL_EDGE',
      seccompHost,
      siteType: site.type,
      userRanges,
      ...(blocker === undefined ? {} : { userNamespaceBlocker: blocker }),
      ...(options.nameserverFor === undefined ? {} : { nameserverFor: options.nameserverFor }),
    }),
    containers: new SiteContainers({
      runc,
      images,
      allowPrivileged: site.type !== 'REGIONAL_EDGE',
      machineMemoryBytes: options.machineMemoryBytes,
      oomScoreFloor: options.oomScoreFloor,
      seccompHost,
      seccompProfileRoot: options.seccompProfileRoot ?? join(options.home, 'seccomp'),
    }),
    images,
    volumes: new PodVolumes({ site: site.name, mounts: new MountCommand(programs.mount), pvRoot, allocatable: { cpu: site.nodes[0]?.cpu ?? '1', memory: site.nodes[0]?.memory ?? '1Gi' } }),
    sidecar: new SidecarLauncher({ installation: options.sidecar, relay: `${network.gateway}:${RELAY_PORT}`, identityToken: options.identityToken, resolveImage: (reference) => images.resolve(reference) }),
    dial: (host, port, timeoutMs) => broker.dial(host, port, timeoutMs),
    logRotation,
    close() {
      relay.close();
      broker.close();
    },
    async destroy() {
      await network.remove();
      await rm(filterStateFile, { force: true });
      await removeCgroup(siteCgroupParent(netns));
      await rm(runcStateRoot(netns), { recursive: true, force: true });
      if (options.podCidr === undefined) await releaseSiteCidr(netns);
      // The site's record of its clusters' ids stays in its folder with their files; the machine's claims go.
      await releaseUserRangeClaims(netns);
    },
  };
}
