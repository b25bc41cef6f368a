import assert from 'node:assert/strict';
import { createLogger, type Logger } from '../../../observability/logger.js';
import type { PlacedSite } from '../../placement/placed-site.js';
import type { PlacementView } from '../../placement/placement-view.js';
import type { GenericStore, RequestScope } from '../../../registry/generic-store.js';
import type { ClusterRef } from '../../../apimachinery/cluster-ref.js';
import { systemClock, type Clock } from '../../../common/clock.js';
import { POD_SITE_LABEL } from '../../../site-api/site-model.js';
import { openMemoryStore } from '../../../store/memory/index.js';
import type { Store } from '../../../store/types.js';
import { VirtualClusterStorage } from '../../../vk8s/cluster-storage.js';
import type { PodTemplateSpec } from '../../../api/pod-spec-types.js';
import { cloneObject, type KubeObject } from '../../../apimachinery/object.js';
import type { EventRecorder } from '../../events/event-recorder.js';
import { ObjectInformer } from '../../runtime/object-informer.js';
import type { PodTemplateFor } from '../../placement/pod-template-for.js';

/** Test doubles and a memory-store world for controller tests (never used outside tests). */

export const testCluster: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
export const userScope = (cluster: ClusterRef = testCluster): RequestScope => ({ cluster, dryRun: false, fieldManager: 'test' });

export const site = (name: string, type: PlacedSite['type'] = 'REGIONAL_EDGE'): PlacedSite => ({ name, type, labels: { [POD_SITE_LABEL]: name } });

/** A placement view whose sites the test sets (per object name, or for everything). */
export class FakePlacement implements PlacementView {
  private sites: readonly PlacedSite[] = [];
  private readonly perObject = new Map<string, readonly PlacedSite[]>();
  private readonly handlers: Array<(cluster: ClusterRef) => void> = [];

  sitesFor(_resource: { group: string; resource: string }, _cluster: ClusterRef, object: KubeObject): readonly PlacedSite[] {
    return this.perObject.get(object.metadata.name ?? '') ?? this.sites;
  }
  onClusterChange(handler: (cluster: ClusterRef) => void): void {
    this.handlers.push(handler);
  }
  /** Places everything on `sites` and tells the controllers. */
  place(sites: readonly PlacedSite[], cluster: ClusterRef = testCluster): void {
    this.sites = sites;
    for (const handler of this.handlers) handler(cluster);
  }
  /** Places the object named `name` on `sites` and tells the controllers. */
  placeObject(name: string, sites: readonly PlacedSite[], cluster: ClusterRef = testCluster): void {
    this.perObject.set(name, sites);
    for (const handler of this.handlers) handler(cluster);
  }
}

export interface RecordedEvent {
  readonly object: string;
  readonly type: string;
  readonly reason: string;
  readonly message: string;
  /** `source.host`, when the recorder was given one. */
  readonly host?: string;
}

export class FakeEvents implements EventRecorder {
  readonly recorded: RecordedEvent[] = [];
  record(_cluster: ClusterRef, object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, _component?: string, host?: string): void {
    this.recorded.push({ object: `${object.kind}/${object.metadata.name ?? ''}`, type, reason, message, ...(host === undefined ? {} : { host }) });
  }
  reasons(object?: string): string[] {
    return this.recorded.filter((e) => object === undefined || e.object === object).map((e) => e.reason);
  }
}

/** The contract's test double: only the site label. */
export const labelOnlyTemplateFor: PodTemplateFor = (_cluster, _workload, template: PodTemplateSpec, placed) => {
  const copy = cloneObject(template);
  copy.metadata = { ...copy.metadata, labels: { ...(copy.metadata?.labels ?? {}), [POD_SITE_LABEL]: placed.name } };
  return copy;
};

export interface ControllerWorld {
  readonly store: Store;
  readonly storage: VirtualClusterStorage;
  readonly placement: FakePlacement;
  readonly events: FakeEvents;
  readonly logger: Logger;
  readonly clock: Clock;
  storeOf(resource: { group: string; resource: string }): GenericStore;
  /** A started informer over the resource's store (stopped with the world). */
  informer(resource: { group: string; resource: string }): Promise<ObjectInformer>;
  /** Writes a pod's status the way a site reports it. */
  setPodStatus(name: string, state: { phase: string; ready?: boolean; podIP?: string; restarts?: number }, cluster?: ClusterRef): Promise<KubeObject>;
  stop(): Promise<void>;
}

export async function startControllerWorld(options: { clock?: Clock } = {}): Promise<ControllerWorld> {
  const store = openMemoryStore();
  const clock = options.clock ?? systemClock();
  const storage = new VirtualClusterStorage({ store, clock });
  await storage.start();
  const abort = new AbortController();
  const storeOf = (resource: { group: string; resource: string }): GenericStore => {
    const s = storage.storeFor(resource);
    assert.ok(s, `no store for ${resource.resource}`);
    return s;
  };
  const logger = createLogger({ level: 'silent' });
  return {
    store,
    storage,
    placement: new FakePlacement(),
    events: new FakeEvents(),
    logger,
    clock,
    storeOf,
    informer: async (resource) => {
      const informer = new ObjectInformer(storeOf(resource), logger);
      await informer.start(abort.signal);
      return informer;
    },
    setPodStatus: (name, state, cluster = testCluster) =>
      storeOf({ group: '', resource: 'pods' }).update(
        userScope(cluster),
        name,
        (pod) => ({
          ...pod,
          status: {
            ...(pod.status as Record<string, unknown>),
            phase: state.phase,
            ...(state.podIP === undefined ? {} : { podIP: state.podIP, podIPs: [{ ip: state.podIP }] }),
            conditions: [{ type: 'Ready', status: state.ready === true ? 'True' : 'False' }],
            ...(state.restarts === undefined ? {} : { containerStatuses: [{ name: 'c', restartCount: state.restarts, ready: state.ready === true, image: 'busybox', imageID: '', state: {} }] }),
          },
        }),
        { subresource: 'status', retryOnConflict: true },
      ),
    stop: async () => {
      abort.abort();
      storage.stop();
      await store.close();
    },
  };
}

/** Polls `check` until it holds (controllers work asynchronously). */
export async function eventually(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
