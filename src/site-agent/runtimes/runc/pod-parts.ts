import type { Logger } from '../../../observability/logger.js';
import type { Timers } from '../../../common/timers.js';
import type { SiteType } from '../../../site-api/site-model.js';
import type { ClusterRef, PodRef } from '../../../site-api/site-api-types.js';
import type { PodRuntimeSink } from '../../pod-runtime.js';
import type { AddressLeases } from './network/address-leases.js';
import type { ClusterObjects } from '../../placed-object-cache.js';
import type { HostImagePlan } from './images/host-image.js';
import type { ImageStore } from './images/image-store.js';
import type { VolumeSetup } from './volumes/volume-setup.js';
import type { ResourceList } from '../../../api/pod-spec-types.js';
import type { NetnsSocketBroker } from './network/netns-broker.js';
import type { PodSandboxes } from './sandbox/pod-sandbox.js';
import type { RuncContainers } from './containers/runc-containers.js';
import type { SiteNetwork } from './network/site-network.js';

/** One runc site's machinery, shared by its pods. */
export interface RuncSiteParts {
  readonly name: string;
  readonly type: SiteType;
  readonly network: SiteNetwork;
  readonly broker: NetnsSocketBroker;
  readonly containers: RuncContainers;
  readonly sandboxes: PodSandboxes;
  readonly leases: AddressLeases;
  /** The site's local images (`edgeplane image import`). */
  readonly images: ImageStore;
  /** The root of a host-image container (the sidecar's always). */
  readonly hostPlan: HostImagePlan;
  /** Pods whose image the site lacks run on the host's programs (`--host-image`). */
  readonly hostImage: boolean;
  /** Sets up and tears down pod volumes. */
  readonly volumes: VolumeSetup;
  /** The folder of the site's persistent volumes. */
  readonly pvRoot: string;
  /** The node's allocatable resources (downward API limits of containers without one). */
  readonly allocatable: ResourceList;
  /** `gateway:port` of the relay to the control plane. */
  readonly relay: string;
}

/** What every pod of the runtime uses. */
export interface PodServices {
  readonly sink: PodRuntimeSink;
  readonly logger: Logger;
  readonly timers: Timers;
  /** The ConfigMaps, Secrets and claims of a pod's virtual cluster (fresh within a few seconds). */
  readonly objectsOf: (cluster: ClusterRef) => Promise<ClusterObjects>;
  /** A bootstrap token for the pod's sidecar, minted by the control plane for this pod's uid. */
  readonly identityToken: (pod: PodRef) => Promise<string>;
  readonly sidecar: { readonly server: string; readonly installation: readonly string[]; readonly main: string; readonly node: string };
  readonly machineMemoryBytes: number;
  readonly oomScoreFloor: number;
  /**
   * The name server of a pod's virtual cluster on its site, running when this resolves (the
   * site's Service data plane, which also lets the pod's address reach its cluster's
   * Services); absent when the site has no Service data plane.
   */
  readonly nameserverFor?: (site: string, cluster: ClusterRef) => Promise<string>;
}

/** A pod's view of its site and the runtime's services. */
export interface PodParts {
  readonly site: RuncSiteParts;
  readonly services: PodServices;
}
