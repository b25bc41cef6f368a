import type { EventRecorder } from '../events/event-recorder.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { termInformer } from '../manager/term-scoped.js';
import { podSpecOf } from '../runtime/pod-state.js';
import type { Informer } from '../runtime/object-informer.js';
import { containersToKill, killingMessage, KILLING_REASON, KUBELET_COMPONENT } from './killing-events.js';

export interface PodKillingDeps {
  /** Shared pods informer (every cluster). */
  readonly pods: Informer;
  readonly events: EventRecorder;
}

/**
 * kubelet's `Killing` events for the sites: when a pod bound to a site's node is marked for
 * deletion, a Normal `Killing` "Stopping container <name>" per running container, from
 * component `kubelet` with the node's name as host (what `kubectl describe pod` shows while a
 * pod terminates). The site agent stops the containers and reports back; the platform knows
 * the moment they are asked to stop, so it records the events once, on the transition
 * (a pod already terminating when the controller starts is not reported again).
 */
export function startPodKillingEvents(deps: PodKillingDeps): { stop(): Promise<void> } {
  let stopped = false;
  deps.pods.onEvent((event) => {
    if (stopped || event.type !== 'updated') return;
    const node = podSpecOf(event.object).nodeName ?? '';
    for (const container of containersToKill(event.old, event.object)) {
      deps.events.record(event.key.cluster, event.object, 'Normal', KILLING_REASON, killingMessage(container), KUBELET_COMPONENT, node);
    }
  });
  return {
    stop: () => {
      stopped = true;
      return Promise.resolve();
    },
  };
}

/** The Killing events as a controller of the manager (leader only: one Event per stop). */
export function podKillingController(): ControllerStarter {
  return {
    name: 'pod-killing-events',
    start: (c) => startPodKillingEvents({ pods: termInformer(c, c.informers.pods), events: c.events }),
  };
}
