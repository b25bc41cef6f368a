import assert from 'node:assert/strict';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import { systemClock, type Clock } from '../../common/clock.js';
import { createLogger, type Logger } from '../../observability/logger.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { startControllerManager, type ControllerManager } from '../manager/controller-manager.js';
import type { PodTemplateFor } from '../placement/pod-template-for.js';
import { ObjectInformer } from '../runtime/object-informer.js';
import { isPodActive, isPodReady, podStatusOf } from '../runtime/pod-state.js';
import { FakeEvents } from './fake-events.js';
import { FakePlacement, testCluster } from './fake-placement.js';
import { FakeSites } from './fake-sites.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

export { FakePlacement, site, testCluster } from './fake-placement.js';
export { FakeEvents } from './fake-events.js';
export { FakeSites, siteNode } from './fake-sites.js';

/** The controller test harness: a memory store, the virtual cluster's storage and test doubles (tests only). */

export const userScope = (cluster: ClusterRef = testCluster): RequestScope => ({ cluster, dryRun: false, fieldManager: 'test' });

/** The contract's test double for the site pod template: only the site label. */
export const labelOnlyTemplateFor: PodTemplateFor = (_cluster, _workload, template: PodTemplateSpec, placed) => {
  const copy = cloneObject(template);
  copy.metadata = { ...copy.metadata, labels: { ...(copy.metadata?.labels ?? {}), [POD_SITE_LABEL]: placed.name } };
  return copy;
};

interface ManagerOptions {
  /** The controllers the manager runs while it leads (called once per manager). */
  readonly controllers: () => ControllerStarter[];
  /** This replica in the election (default `harness`). */
  readonly identity?: string;
  /** Default {@link labelOnlyTemplateFor}. */
  readonly podTemplateFor?: PodTemplateFor;
}

/** A world controllers run in: started by hand over {@link informer}s, or under a manager. */
export interface ControllerWorld {
  readonly store: Store;
  readonly storage: VirtualClusterStorage;
  /** The test cluster, and a user's scope in it. */
  readonly cluster: ClusterRef;
  readonly scope: RequestScope;
  readonly placement: FakePlacement;
  readonly sites: FakeSites;
  readonly events: FakeEvents;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly deployments: GenericStore;
  readonly replicaSets: GenericStore;
  readonly pods: GenericStore;
  storeOf(resource: { group: string; resource: string }): GenericStore;
  /** A started informer over the resource's store (stopped with the world). */
  informer(resource: { group: string; resource: string }): Promise<ObjectInformer>;
  /** Starts a controller manager over the world (another control-plane replica, with a short election); stopped with the world. */
  startManager(options: ManagerOptions): Promise<ControllerManager>;
  /** Every object of a resource in the test cluster, from the store. */
  list(store: GenericStore): Promise<KubeObject[]>;
  /** Writes a pod's status the way a site reports it. */
  setPodStatus(name: string, state: { phase: string; ready?: boolean; podIP?: string; restarts?: number }, cluster?: ClusterRef): Promise<KubeObject>;
  /** Marks every active pod not yet ready Running and Ready (what a site would report); returns how many. */
  readyPods(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts a world on `clock` (default the system clock); nothing is placed until the test says so. */
export async function startControllerWorld(options: { clock?: Clock } = {}): Promise<ControllerWorld> {
  const store = openMemoryStore();
  const clock = options.clock ?? systemClock();
  const storage = new VirtualClusterStorage({ store, clock });
  await storage.start();
  const abort = new AbortController();
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'silent' });
  const placement = new FakePlacement();
  const sites = new FakeSites();
  const events = new FakeEvents();
  const scope = userScope();
  const storeOf = (resource: { group: string; resource: string }): GenericStore => {
    const found = storage.storeFor(resource);
    assert.ok(found, `no store for ${resource.resource}`);
    return found;
  };
  const pods = storeOf({ group: '', resource: 'pods' });
  const list = async (of: GenericStore): Promise<KubeObject[]> => [...(await of.list(testCluster, {})).items];
  const managers: ControllerManager[] = [];
  const startManager = async (manager: ManagerOptions): Promise<ControllerManager> => {
    const started = await startControllerManager({
      store,
      storage,
      placement,
      podTemplateFor: manager.podTemplateFor ?? labelOnlyTemplateFor,
      events,
      sites,
      clock,
      logger,
      identity: manager.identity ?? 'harness',
      election: { ttlSeconds: 2, renewIntervalMs: 200, retryIntervalMs: 500 },
      controllers: manager.controllers(),
    });
    managers.push(started);
    return started;
  };
  return {
    store,
    storage,
    cluster: testCluster,
    scope,
    placement,
    sites,
    events,
    logger,
    clock,
    deployments: storeOf({ group: 'apps', resource: 'deployments' }),
    replicaSets: storeOf({ group: 'apps', resource: 'replicasets' }),
    pods,
    storeOf,
    informer: async (resource) => {
      const informer = new ObjectInformer(storeOf(resource), logger);
      await informer.start(abort.signal);
      return informer;
    },
    startManager,
    list,
    setPodStatus: (name, state, cluster = testCluster) => pods.update(userScope(cluster), name, (pod) => ({ ...pod, status: siteReportedStatus(pod, state) }), { subresource: 'status', retryOnConflict: true }),
    readyPods: async () => {
      const waiting = (await list(pods)).filter((p) => isPodActive(p) && !isPodReady(p));
      const now = metav1Time(Date.now());
      const ready = (live: KubeObject): KubeObject => ({ ...live, status: { ...podStatusOf(live), phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } });
      await Promise.all(waiting.map((p) => pods.update(scope, p.metadata.name ?? '', ready, { subresource: 'status', retryOnConflict: true }).catch(() => undefined)));
      return waiting.length;
    },
    stop: async () => {
      await Promise.all(managers.map((m) => m.stop()));
      abort.abort();
      storage.stop();
      await store.close();
    },
  };
}

/** A pod's status as a site reports it: phase, Ready, and the IP and restarts when given. */
function siteReportedStatus(pod: KubeObject, state: { phase: string; ready?: boolean; podIP?: string; restarts?: number }): Record<string, unknown> {
  return {
    ...(pod.status as Record<string, unknown>),
    phase: state.phase,
    ...(state.podIP === undefined ? {} : { podIP: state.podIP, podIPs: [{ ip: state.podIP }] }),
    conditions: [{ type: 'Ready', status: state.ready === true ? 'True' : 'False' }],
    ...(state.restarts === undefined ? {} : { containerStatuses: [{ name: 'c', restartCount: state.restarts, ready: state.ready === true, image: 'busybox', imageID: '', state: {} }] }),
  };
}

/** Polls `check` until it holds (controllers work asynchronously); fails after `timeoutMs`. */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
