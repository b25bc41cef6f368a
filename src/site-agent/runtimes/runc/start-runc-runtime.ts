import type { Timers } from '../../../common/timers.js';
import type { NodeDirectory } from '../../node-directory.js';
import { PlacedObjectCache } from '../../placed-object-cache.js';
import type { PodRuntimeSink } from '../../pod-runtime.js';
import type { Logger } from '../../../observability/logger.js';
import type { RegisterSite } from '../../../site-api/site-api-types.js';
import type { SiteApiClient } from '../../site-api-client.js';
import type { RuncSiteParts } from './pod-parts.js';
import { RuncRuntime } from './runc-runtime.js';
import { oomScoreFloor } from './containers/oom-score-floor.js';
import { openRuncSite } from './runc-site.js';
import { installation, type RuntimePrograms } from './runtime-programs.js';
import { startServiceProxies } from '../../service-proxy/start-service-proxies.js';
import type { ClusterRef } from '../../../apimachinery/cluster-ref.js';

/** The runc runtime's options of an agent. */
export interface RuncAgentOptions {
  readonly hostImage: boolean;
  readonly podCidr?: string;
  /** How often the sites' folders of claims that are gone are looked for (default 60 s; a folder goes at the second sweep that finds it unused). */
  readonly claimSweepMs?: number;
}

/** The control plane's host and port from its URL. */
function addressOf(server: string): { host: string; port: number } {
  const url = new URL(server);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port === '' ? 443 : Number(url.port) };
}

/**
 * The runc runtime of an agent: the programs it needs (root, runc, conmon, catatonit, ip — a
 * clear error naming what is missing), every site's network and relay, and the services its
 * pods use through the agent's site API connection (bootstrap tokens, ConfigMaps and Secrets).
 */
export async function startRuncRuntime(context: {
  readonly options: {
    readonly home: string;
    readonly sites: readonly RegisterSite[];
    readonly logger: Logger;
    readonly runc?: RuncAgentOptions;
  };
  readonly programs: RuntimePrograms;
  readonly client: SiteApiClient;
  readonly server: string;
  readonly sink: PodRuntimeSink;
  readonly nodes: NodeDirectory;
  readonly timers: Timers;
}): Promise<RuncRuntime> {
  const { options, client, timers } = context;
  const { programs } = context;
  const sites = new Map<string, RuncSiteParts & { close(): void; destroy(): Promise<void> }>();
  if (options.runc?.podCidr !== undefined && options.sites.length > 1) throw new Error('--pod-cidr names the network of one site; run one site per agent with it');
  try {
    for (const site of options.sites) {
      sites.set(
        site.name,
        await openRuncSite({
          home: options.home,
          site,
          programs,
          hostImage: options.runc?.hostImage ?? false,
          controlPlane: addressOf(context.server),
          logger: options.logger,
          ...(options.runc?.podCidr === undefined ? {} : { podCidr: options.runc.podCidr }),
        }),
      );
    }
  } catch (error) {
    for (const site of sites.values()) site.close();
    throw error;
  }
  const objects = new PlacedObjectCache((kind) => client.placedObjects(kind), () => timers.now());
  const serviceProxies = startServiceProxies({ ...context, sites, runtime: () => runtime });
  const runtime: RuncRuntime = new RuncRuntime({
    nodes: context.nodes,
    sites,
    ...(serviceProxies === undefined ? {} : { proxies: serviceProxies.proxies }),
    claimSweep: { list: () => client.placedObjects('persistentvolumeclaims'), intervalMs: options.runc?.claimSweepMs ?? 60_000 },
    services: {
      sink: context.sink,
      logger: options.logger,
      timers,
      objectsOf: (cluster) => objects.of(cluster),
      identityToken: async (pod) => (await client.podIdentityToken(pod)).token,
      sidecar: { server: context.server, installation: installation().dirs, main: installation().main, node: process.execPath },
      oomScoreFloor: oomScoreFloor(),
      ...(serviceProxies === undefined ? {} : { nameserverFor: (site: string, cluster: ClusterRef) => serviceProxies.nameserverFor(site, cluster) }),
    },
  });
  return runtime;
}
