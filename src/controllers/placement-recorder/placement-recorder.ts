import type { Logger } from '../../observability/logger.js';
import { PLACEMENT_COMPONENT } from '../placement/placement-engine.js';
import type { PlacementView, ResourceKind } from '../placement/placement-view.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { startControllerLoop, type ControllerLoop } from '../runtime/controller-loop.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { termInformer, termPlacement } from '../manager/term-scoped.js';
import type { Informer } from '../runtime/object-informer.js';
import type { ObjectKey } from '../runtime/object-key.js';
import type { WorkQueueOptions } from '../runtime/work-queue.js';
import { placedMessage, placedSiteNames, PLACED_REASON } from './placed-message.js';

/** The kinds placed like workloads that no other controller places (PVCs: the volume binder). */
export const RECORDED_KINDS = ['secrets', 'configmaps', 'serviceaccounts', 'services'] as const;
export type RecordedKind = (typeof RECORDED_KINDS)[number];

export interface PlacementRecorderDeps {
  /** Shared informers, started (synced) before the recorder. */
  readonly informers: Readonly<Record<RecordedKind, Informer>>;
  readonly placement: PlacementView;
  readonly events: EventRecorder;
  readonly logger: Logger;
  /** Objects evaluated at once per kind (default 1: an evaluation is a memoised lookup). */
  readonly workers?: number;
  readonly queue?: WorkQueueOptions;
}

/**
 * Places Secrets, ConfigMaps, ServiceAccounts and Services by the workloads' rules (their
 * `svc.io/sites` / `svc.io/virtual-sites` annotations, else the vK8s default) and tells users
 * where, without writing into their objects: a Normal `Placed` event "placed on sites a, b"
 * on the object whenever its set of sites changes (and when it first appears), from
 * component `placement`. Bad annotations are reported by the placement view itself
 * (FailedPlacement, once per object generation). Re-evaluated on every change of the object
 * and of its cluster's placement inputs. The sites serve themselves the objects placed on
 * them from the placement view (the site API), so this record is only for people.
 *
 * Objects present when the recorder starts (a new leadership term) are taken as already
 * announced: their placement is remembered without an event, so a leader change does not
 * repeat one event per object. A change during a leaderless gap is therefore not announced.
 */
export function startPlacementRecorder(deps: PlacementRecorderDeps): { stop(): Promise<void> } {
  const announced = new Map<string, string>();
  const sitesOf = (resource: ResourceKind, key: ObjectKey, object: KubeObject): string[] => placedSiteNames(deps.placement.sitesFor(resource, key.cluster, object));
  const loops: Array<{ loop: ControllerLoop; informer: Informer }> = [];
  for (const kind of RECORDED_KINDS) {
    const informer = deps.informers[kind];
    const resource: ResourceKind = { group: '', resource: kind };
    for (const key of informer.keys()) {
      const object = informer.get(key.cluster, key.name);
      const uid = object?.metadata.uid;
      if (object !== undefined && uid !== undefined) announced.set(uid, sitesOf(resource, key, object).join());
    }
    const loop = startControllerLoop({
      name: `placement-recorder-${kind}`,
      logger: deps.logger,
      workers: deps.workers ?? 1,
      ...(deps.queue === undefined ? {} : { queue: deps.queue }),
      reconcile: (key) => {
        const object = informer.get(key.cluster, key.name);
        const uid = object?.metadata.uid;
        if (object === undefined || uid === undefined || object.metadata.deletionTimestamp !== undefined) return Promise.resolve();
        const names = sitesOf(resource, key, object);
        const joined = names.join();
        if (announced.get(uid) !== joined) {
          announced.set(uid, joined);
          deps.events.record(key.cluster, object, 'Normal', PLACED_REASON, placedMessage(names), PLACEMENT_COMPONENT);
        }
        return Promise.resolve();
      },
    });
    informer.onEvent((event) => {
      if (event.type === 'deleted') {
        if (event.object.metadata.uid !== undefined) announced.delete(event.object.metadata.uid);
        return;
      }
      loop.enqueue(event.key);
    });
    loops.push({ loop, informer });
  }
  deps.placement.onClusterChange((cluster) => {
    for (const { loop, informer } of loops) loop.enqueueAll(informer, cluster);
  });
  return { stop: async () => void (await Promise.all(loops.map(({ loop }) => loop.stop()))) };
}

/** The recorder as a controller of the manager (leader only: one event per decision). */
export function placementRecorderController(): ControllerStarter {
  return {
    name: 'placement-recorder',
    start: (c) =>
      startPlacementRecorder({
        informers: {
          secrets: termInformer(c, c.informers.secrets),
          configmaps: termInformer(c, c.informers.configMaps),
          serviceaccounts: termInformer(c, c.informers.serviceAccounts),
          services: termInformer(c, c.informers.services),
        },
        placement: termPlacement(c),
        events: c.events,
        logger: c.logger.child({ controller: 'placement-recorder' }),
      }),
  };
}
