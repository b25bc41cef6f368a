import type { Timers } from '../../../../common/timers.js';
import type { Logger } from '../../../../observability/logger.js';
import type { SiteType } from '../../../../site-api/site-model.js';
import type { ClusterRef } from '../../../../site-api/site-api-types.js';
import type { ClusterObjects } from '../../../placed-object-cache.js';
import type { PodRuntimeSink } from '../../../pod-runtime.js';
import type { LogRotationPolicy, SiteContainers } from '../containers/index.js';
import type { SiteImages } from '../images/index.js';
import type { Dial } from '../probes/index.js';
import type { PodSandboxes } from '../sandbox/index.js';
import type { SidecarLauncher } from '../sidecar/index.js';
import type { PodVolumes } from '../volumes/index.js';

/**
 * One runc site's services, shared by its pods' workers (kubelet's container runtime, image
 * and volume managers for that site).
 */
export interface RuncSite {
  readonly name: string;
  readonly type: SiteType;
  /** The site gateway: every pod's hostIP. */
  readonly hostIP: string;
  readonly sandboxes: PodSandboxes;
  readonly containers: SiteContainers;
  readonly images: SiteImages;
  readonly volumes: PodVolumes;
  readonly sidecar: SidecarLauncher;
  /** Dials from the site's network (probes and hooks). */
  readonly dial: Dial;
  /** How the containers' logs rotate (kubelet's `--container-log-max-size` and `-files`). */
  readonly logRotation: LogRotationPolicy;
}

/** What every pod of the agent's runc runtime uses, whatever its site. */
export interface PodServices {
  readonly sink: PodRuntimeSink;
  readonly logger: Logger;
  readonly timers: Timers;
  /** The ConfigMaps, Secrets and claims of a pod's virtual cluster (fresh within a few seconds). */
  readonly objectsOf: (cluster: ClusterRef) => Promise<ClusterObjects>;
}
