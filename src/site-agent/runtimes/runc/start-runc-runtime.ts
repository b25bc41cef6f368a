import { totalmem } from 'node:os';
import type { Duplex } from 'node:stream';
import type { Registry } from 'prom-client';
import type { Timers } from '../../../common/timers.js';
import type { Logger } from '../../../observability/logger.js';
import type { RegisterSite } from '../../../site-api/site-api-types.js';
import type { NodeDirectory } from '../../node-directory.js';
import { PlacedObjectCache } from '../../placed-object-cache.js';
import type { PodRuntimeSink } from '../../pod-runtime.js';
import { startServicePlane, type ServicePlane } from '../../service-proxy/index.js';
import type { SiteApiClient } from '../../site-api-client.js';
import { oomScoreFloor, type LogRotationPolicy } from './containers/index.js';
import { DEFAULT_STORAGE_CHECK_MS } from './eviction/index.js';
import { cidrContains, type ClusterDestination } from './network/index.js';
import { RuncRuntime } from './runc-runtime.js';
import { openRuncSite, type OpenRuncSite } from './runc-site.js';
import { installation, requireSocat, servicePrograms, type RuntimeProgramPaths, type RuntimePrograms } from './runtime-programs.js';
import { registerSiteNetworkMetrics } from './site-network-metrics.js';

/** The runc runtime's options of an agent. */
export interface RuncAgentOptions {
  readonly hostImage: boolean;
  readonly podCidr?: string;
  /** How often the sites' folders of claims that are gone are looked for (default 60 s; a folder goes at the second sweep that finds it unused). */
  readonly claimSweepMs?: number;
  /** Where the runtime's programs are (default: PATH). */
  readonly programs?: RuntimeProgramPaths;
  /** How containers' logs rotate (kubelet's `--container-log-max-size` / `--container-log-max-files`; default 10 MiB, 5 files). */
  readonly containerLogs?: Partial<LogRotationPolicy>;
  /** The most bytes all pods of one site may hold on disk together (`--site-ephemeral-storage`; default: no cap). */
  readonly siteEphemeralStorageBytes?: number;
  /** How often the pods' ephemeral storage is measured (default 10 s, as kubelet's eviction manager). */
  readonly storageCheckMs?: number;
  /** Each site's pod and site PIDs limits and its Localhost seccomp profiles (see RuncSiteOptions). */
  readonly podPidsLimit?: number;
  readonly sitePidsLimit?: number;
  readonly seccompProfileRoot?: string;
}

/**
 * The runc runtime of an agent: every site's network, relay (into the site API's pod relay)
 * and services, the sites' Service data plane (HAProxy and dnsmasq; without them, a warning
 * naming what to install), and the services its pods use through the agent's site API
 * connection (bootstrap tokens, ConfigMaps, Secrets and claims).
 */
export async function startRuncRuntime(context: {
  readonly options: {
    readonly home: string;
    readonly sites: readonly RegisterSite[];
    readonly logger: Logger;
    readonly runc?: RuncAgentOptions;
  };
  readonly programs: RuntimePrograms;
  /** The site API calls of the pods and the Service data plane (the placed objects through the agent's offline state). */
  readonly client: Pick<SiteApiClient, 'podIdentityToken' | 'placedObjects' | 'postServiceEvents'>;
  readonly server: string;
  /** Opens a pod relay connection to the control plane (the sites' gateway relays pipe their pods' connections into one each). */
  readonly podRelay: () => Promise<Duplex>;
  readonly sink: PodRuntimeSink;
  readonly nodes: NodeDirectory;
  readonly timers: Timers;
  /** Where the sites' network metrics (the filter's drop counters) are registered, when the agent serves metrics. */
  readonly metrics?: Registry;
}): Promise<RuncRuntime> {
  const { options, client, timers, programs } = context;
  const { logger } = options;
  if (options.runc?.podCidr !== undefined && options.sites.length > 1) throw new Error('--pod-cidr names the network of one site; run one site per agent with it');
  const found = servicePrograms(programs);
  if ('missing' in found) logger.warn({ missing: found.missing }, 'runc sites run without their Service data plane: Services carry no traffic and no name resolves in pods');
  const planeRef: { current?: ServicePlane } = {};
  const sites = new Map<string, OpenRuncSite>();
  const floor = oomScoreFloor();
  try {
    for (const site of options.sites) {
      sites.set(
        site.name,
        await openRuncSite({
          home: options.home,
          site,
          programs,
          hostImage: options.runc?.hostImage ?? false,
          podRelay: context.podRelay,
          sidecar: { server: context.server, installation: installation().dirs, main: installation().main, node: process.execPath },
          identityToken: async (pod) => (await client.podIdentityToken(pod)).token,
          ...('missing' in found ? {} : { nameserverFor: (cluster, podIP) => (planeRef.current as ServicePlane).nameserverFor(site.name, cluster, podIP) }),
          machineMemoryBytes: totalmem(),
          oomScoreFloor: floor,
          logger,
          ...(options.runc?.podCidr === undefined ? {} : { podCidr: options.runc.podCidr }),
          ...(options.runc?.containerLogs === undefined ? {} : { containerLogs: options.runc.containerLogs }),
          ...(options.runc?.podPidsLimit === undefined ? {} : { podPidsLimit: options.runc.podPidsLimit }),
          ...(options.runc?.sitePidsLimit === undefined ? {} : { sitePidsLimit: options.runc.sitePidsLimit }),
          ...(options.runc?.seccompProfileRoot === undefined ? {} : { seccompProfileRoot: options.runc.seccompProfileRoot }),
        }),
      );
    }
  } catch (error) {
    for (const site of sites.values()) site.close();
    throw error;
  }
  if (!('missing' in found)) {
    const planeSites = new Map(
      [...sites].map(([name, { network }]) => [name, { netns: network.netns, contains: (ip: string) => cidrContains(network.cidr, ip) }]),
    );
    const planePrograms = { ip: programs.ip, ...found };
    // What each cluster's data plane serves on a site is what the site's filter lets that cluster's pods open.
    const destinations = async (site: string, byCluster: ReadonlyMap<string, readonly ClusterDestination[]>): Promise<void> =>
      sites.get(site)?.network.filter.setDestinations(Object.fromEntries(byCluster));
    const plane = { home: options.home, logger, programs: planePrograms, client, nodes: context.nodes, timers };
    planeRef.current = startServicePlane({ ...plane, sites: planeSites, destinations });
  }
  if (context.metrics !== undefined) registerSiteNetworkMetrics(context.metrics, sites);
  const objects = new PlacedObjectCache((kind) => client.placedObjects(kind), () => timers.now(), undefined, (error) =>
    logger.warn({ err: error }, 'cannot read the ConfigMaps, Secrets and claims placed on the sites; containers start with those read last until the control plane answers'),
  );
  return new RuncRuntime({
    nodes: context.nodes,
    sites,
    ...(planeRef.current === undefined ? {} : { servicePlane: planeRef.current }),
    socat: () => requireSocat(programs),
    claimSweep: { list: () => client.placedObjects('persistentvolumeclaims'), intervalMs: options.runc?.claimSweepMs ?? 60_000 },
    storage: {
      intervalMs: options.runc?.storageCheckMs ?? DEFAULT_STORAGE_CHECK_MS,
      ...(options.runc?.siteEphemeralStorageBytes === undefined ? {} : { siteCapBytes: options.runc.siteEphemeralStorageBytes }),
    },
    services: { sink: context.sink, logger, timers, objectsOf: (cluster) => objects.of(cluster) },
  });
}
