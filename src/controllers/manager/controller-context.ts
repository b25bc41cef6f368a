import type { Logger } from '../../observability/logger.js';
import type { PodTemplateFor } from '../placement/pod-template-for.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Clock } from '../../common/clock.js';
import type { SiteInventory } from '../placement/site-inventory.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { InformerHandler, ObjectInformer } from '../runtime/object-informer.js';
import type { ControllerMetrics } from './controller-metrics.js';

/** The pod template a workload runs on a site (placement's factory; a throw becomes FailedCreate). */
export type { PodTemplateFor };

/** The shared informers of the controller manager (one per resource, shared by every controller). */
export interface SharedInformers {
  readonly deployments: ObjectInformer;
  readonly replicaSets: ObjectInformer;
  readonly pods: ObjectInformer;
  readonly statefulSets: ObjectInformer;
  readonly jobs: ObjectInformer;
  readonly cronJobs: ObjectInformer;
  readonly persistentVolumeClaims: ObjectInformer;
  readonly persistentVolumes: ObjectInformer;
  readonly services: ObjectInformer;
  readonly endpoints: ObjectInformer;
  /** Metadata only (no controller reads more of these kinds; see ObjectInformerOptions.metadataOnly). */
  readonly secrets: ObjectInformer;
  /** Metadata only. */
  readonly configMaps: ObjectInformer;
  /** Metadata only. */
  readonly serviceAccounts: ObjectInformer;
}

/** Subscriptions that last one leadership term (the manager drops them when the term ends). */
export interface TermEvents {
  informer(informer: ObjectInformer, handler: InformerHandler): void;
  clusterChange(handler: (cluster: ClusterRef) => void): void;
  siteChange(handler: (site: string) => void): void;
}

/** What a controller is started with, for one leadership term. */
export interface ControllerContext {
  readonly informers: SharedInformers;
  readonly on: TermEvents;
  readonly storage: VirtualClusterStorage;
  readonly placement: PlacementView;
  readonly podTemplateFor: PodTemplateFor;
  readonly events: EventRecorder;
  readonly sites: SiteInventory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics: ControllerMetrics;
  /** Workers per controller (default per controller). */
  readonly workers?: number;
}

/** A running controller; `stop` shuts its queue down and waits for the reconciles in flight. */
export interface RunningController {
  stop(): Promise<void>;
}

/** A controller the manager starts when it becomes the leader. */
export interface ControllerStarter {
  readonly name: string;
  start(context: ControllerContext): RunningController;
}
