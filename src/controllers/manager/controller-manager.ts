import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import type { Registry } from 'prom-client';
import type { Logger } from '../../observability/logger.js';
import type { PlacementView } from '../placement/placement-view.js';
import type { GenericStore } from '../../registry/generic-store.js';
import type { Clock } from '../../common/clock.js';
import type { SiteInventory } from '../placement/site-inventory.js';
import type { Store } from '../../store/types.js';
import type { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import { deploymentController } from '../deployment/deployment-controller.js';
import { cronJobController, endpointsController, jobController, statefulSetController, volumeBinderController } from './batch-controllers.js';
import type { EventRecorder } from '../events/event-recorder.js';
import { replicaSetController } from '../replicaset/replica-set-controller.js';
import { startLeaderElection, type LeaderElector } from '../runtime/leader-election.js';
import { ObjectInformer } from '../runtime/object-informer.js';
import { placementRecorderController } from '../placement-recorder/placement-recorder.js';
import { podKillingController } from '../pod-killing/pod-killing-controller.js';
import { schedulerController } from '../scheduler/scheduler.js';
import { taintEvictionController } from '../taint-eviction/taint-eviction-controller.js';
import type { ControllerContext, ControllerStarter, PodTemplateFor, RunningController, SharedInformers } from './controller-context.js';
import { controllerMetrics } from './controller-metrics.js';
import { TermSubscriptions } from './term-subscriptions.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';

export interface ControllerManagerOptions {
  /** The store the election lease lives in (the one the storage uses). */
  readonly store: Store;
  /** Started: its watch caches have listed. */
  readonly storage: VirtualClusterStorage;
  readonly placement: PlacementView;
  readonly podTemplateFor: PodTemplateFor;
  readonly events: EventRecorder;
  readonly sites: SiteInventory;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly metrics?: Registry;
  /** This process in the election (default `<hostname>_<pid>_<random>`). */
  readonly identity?: string;
  /** The election (key `/leases/controllers/<name>`, default name `vk8s-controllers`) and its timing. */
  readonly election?: { readonly name?: string; readonly ttlSeconds?: number; readonly renewIntervalMs?: number; readonly retryIntervalMs?: number };
  /** The controllers run while leading (the server's: {@link defaultControllers} and more). */
  readonly controllers: readonly ControllerStarter[];
  /** Workers per controller, instead of each controller's default. */
  readonly workers?: number;
}

export interface ControllerManager {
  readonly informers: SharedInformers;
  readonly isLeader: boolean;
  /** Stops the controllers (releasing the lease at once), the election and the informers. */
  stop(): Promise<void>;
}

/**
 * The controllers the manager runs unless told otherwise. `platformVersion`: the sidecar
 * version the scheduler injects on sites that run it. `cronJobTimers`: the timers the CronJob
 * controller sleeps on until a scheduled time (default real timers; tests that move the clock
 * pass timers on it).
 */
export function defaultControllers(options: { readonly platformVersion: string; readonly cronJobTimers?: WorkQueueOptions }): ControllerStarter[] {
  return [deploymentController(), replicaSetController(), schedulerController({ platformVersion: options.platformVersion }), statefulSetController(), jobController(), cronJobController(options.cronJobTimers), endpointsController(), volumeBinderController(), podKillingController(), placementRecorderController(), taintEvictionController()];
}

/**
 * kube-controller-manager for the virtual clusters: one shared informer per resource the
 * controllers read (Deployments, ReplicaSets, pods; warm in every process, so a new leader
 * starts at once), and — only while this process holds the `vk8s-controllers` store lease —
 * the controllers, each a work queue fed by those informers, the placement view and the site
 * inventory. Losing the lease closes the term at once: no handler hears another event, the
 * queues shut down, the reconciles in flight finish, then the process campaigns again.
 */
export async function startControllerManager(options: ControllerManagerOptions): Promise<ControllerManager> {
  const { logger, storage } = options;
  const lifetime = new AbortController();
  // One signal ends every shared informer's cache watch: more listeners than Node's default warning level.
  setMaxListeners(64, lifetime.signal);
  const informer = (group: string, resource: string, metadataOnly = false): ObjectInformer =>
    new ObjectInformer(storage.storeFor({ group, resource }) as GenericStore, logger.child({ informer: resource }), { metadataOnly });
  const informers: SharedInformers = {
    deployments: informer('apps', 'deployments'),
    replicaSets: informer('apps', 'replicasets'),
    pods: informer('', 'pods'),
    statefulSets: informer('apps', 'statefulsets'),
    jobs: informer('batch', 'jobs'),
    cronJobs: informer('batch', 'cronjobs'),
    persistentVolumeClaims: informer('', 'persistentvolumeclaims'),
    persistentVolumes: informer('', 'persistentvolumes'),
    services: informer('', 'services'),
    endpoints: informer('', 'endpoints'),
    secrets: informer('', 'secrets', true),
    configMaps: informer('', 'configmaps', true),
    serviceAccounts: informer('', 'serviceaccounts', true),
  };
  const metrics = controllerMetrics(options.metrics);
  let term: TermSubscriptions | undefined;
  for (const shared of Object.values(informers) as ObjectInformer[]) shared.onEvent((event) => term?.tellInformer(shared, event));
  options.placement.onClusterChange((cluster) => term?.tellCluster(cluster));
  options.sites.onChange((site) => term?.tellSite(site));
  await Promise.all(Object.values(informers).map((shared: ObjectInformer) => shared.start(lifetime.signal)));

  const starters = options.controllers;
  let running: RunningController[] = [];
  let stopping: Promise<void> | undefined;
  const endTerm = (): Promise<void> => {
    if (stopping !== undefined) return stopping;
    term?.close();
    term = undefined;
    const ending = running;
    running = [];
    metrics.setLeader(false);
    stopping = Promise.all(ending.map((c) => c.stop())).then(() => undefined);
    return stopping;
  };

  const elector: LeaderElector = startLeaderElection({
    store: options.store,
    name: options.election?.name ?? 'vk8s-controllers',
    identity: options.identity ?? `${hostname()}_${process.pid}_${randomBytes(4).toString('hex')}`,
    logger,
    ...(options.election?.ttlSeconds === undefined ? {} : { ttlSeconds: options.election.ttlSeconds }),
    ...(options.election?.renewIntervalMs === undefined ? {} : { renewIntervalMs: options.election.renewIntervalMs }),
    ...(options.election?.retryIntervalMs === undefined ? {} : { retryIntervalMs: options.election.retryIntervalMs }),
    onStartedLeading: (signal) => {
      stopping = undefined;
      const subscriptions = new TermSubscriptions(logger);
      term = subscriptions;
      metrics.setLeader(true);
      const context: ControllerContext = {
        informers,
        on: subscriptions,
        storage,
        placement: options.placement,
        podTemplateFor: options.podTemplateFor,
        events: options.events,
        sites: options.sites,
        clock: options.clock,
        logger,
        metrics,
        ...(options.workers === undefined ? {} : { workers: options.workers }),
      };
      for (const starter of starters) {
        running.push(starter.start(context));
        logger.info({ controller: starter.name }, 'controller started');
      }
      signal.addEventListener('abort', () => void endTerm(), { once: true });
    },
    onStoppedLeading: () => endTerm(),
  });

  // Start returns once this process knows whether it leads (and, leading, has started the controllers).
  await elector.firstAttempt;
  return {
    informers,
    get isLeader() {
      return elector.isLeader;
    },
    stop: async () => {
      await elector.stop();
      await endTerm();
      lifetime.abort();
    },
  };
}
