import { mkdir, rm } from 'node:fs/promises';
import { removeCgroup } from '../../host/cgroup-tree.js';
import { join } from 'node:path';
import type { Logger } from '../../../observability/logger.js';
import type { RegisterSite } from '../../../site-api/site-api-types.js';
import { AddressLeases } from './network/address-leases.js';
import { ControlPlaneRelay, RELAY_PORT } from './network/control-plane-relay.js';
import { hostImagePlan, inspectHost } from './images/host-image.js';
import { ImageStore, siteImageStoreDir } from './images/image-store.js';
import { IpCommand } from '../../host/ip-command.js';
import { MountCommand } from './volumes/mount-command.js';
import { VolumeSetup } from './volumes/volume-setup.js';
import { parseCidr, type Ipv4Cidr } from './network/ipv4-cidr.js';
import { NetnsSocketBroker } from './network/netns-broker.js';
import { oomScoreFloor } from './containers/oom-score-floor.js';
import type { RuncSiteParts } from './pod-parts.js';
import { PodSandboxes } from './sandbox/pod-sandbox.js';
import { RuncContainers } from './containers/runc-containers.js';
import type { RuntimePrograms } from './runtime-programs.js';
import { claimSiteCidr, releaseSiteCidr } from './network/site-cidr-claims.js';
import { SiteNetwork, siteNamespaceName } from './network/site-network.js';

export interface RuncSiteOptions {
  /** The agent's home: the site's pods live under `<home>/runc/<site>/`. */
  readonly home: string;
  readonly site: RegisterSite;
  readonly programs: RuntimePrograms;
  /** The site's pod CIDR (default: a free 10.244.n.0/24 of this machine). */
  readonly podCidr?: string;
  readonly hostImage: boolean;
  /** The control plane's address, which the relay on the site gateway forwards to. */
  readonly controlPlane: { readonly host: string; readonly port: number };
  readonly logger: Logger;
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
 * Prepares one runc site: its network namespace, bridge and pod CIDR, the socket broker in
 * it, the relay to the control plane on its gateway, and the runc state, pod folders and
 * address leases its pods use. An existing network (an earlier start) is kept as it is.
 */
export async function openRuncSite(options: RuncSiteOptions): Promise<RuncSiteParts & { close(): void; destroy(): Promise<void> }> {
  const { programs, site } = options;
  const netns = siteNamespaceName(options.home, site.name);
  const cidr: Ipv4Cidr = options.podCidr === undefined ? await claimSiteCidr(netns) : parseCidr(options.podCidr);
  const ip = new IpCommand(programs.ip);
  const network = new SiteNetwork(ip, netns, cidr);
  await network.ensure();
  const broker = new NetnsSocketBroker(programs.ip, netns);
  const relay = new ControlPlaneRelay(broker, options.controlPlane, options.logger);
  await relay.listen(network.gateway);
  const siteDir = join(options.home, 'runc', site.name);
  await mkdir(join(siteDir, 'pods'), { recursive: true, mode: 0o700 });
  const containers = new RuncContainers(programs.runc, programs.conmon, runcStateRoot(netns));
  const sandboxes = new PodSandboxes({
    containers,
    network,
    catatonit: programs.catatonit,
    podsDir: join(siteDir, 'pods'),
    cgroupParent: siteCgroupParent(netns),
    oomScoreFloor: oomScoreFloor(),
  });
  options.logger.info({ site: site.name, network: network.describe(), hostImage: options.hostImage }, 'runc site ready');
  return {
    name: site.name,
    type: site.type,
    network,
    broker,
    containers,
    sandboxes,
    leases: new AddressLeases(join(siteDir, 'addresses'), cidr),
    images: new ImageStore({ dir: siteImageStoreDir(options.home), umoci: programs.umoci }),
    hostPlan: hostImagePlan(inspectHost),
    volumes: new VolumeSetup(new MountCommand(programs.mount)),
    pvRoot: join(siteDir, 'persistent-volumes'),
    allocatable: { cpu: site.nodes[0]?.cpu ?? '1', memory: site.nodes[0]?.memory ?? '1Gi' },
    hostImage: options.hostImage,
    relay: `${network.gateway}:${RELAY_PORT}`,
    close() {
      relay.close();
      broker.close();
    },
    /** After close, with every pod gone: removes the site's network, cgroup parent, runc state and CIDR claim. */
    async destroy() {
      await network.remove();
      await removeCgroup(siteCgroupParent(netns));
      await rm(runcStateRoot(netns), { recursive: true, force: true });
      if (options.podCidr === undefined) await releaseSiteCidr(netns);
    },
  };
}
