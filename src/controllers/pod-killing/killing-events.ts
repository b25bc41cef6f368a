import type { KubeObject } from '../../apimachinery/object.js';
import { podSpecOf } from '../runtime/pod-state.js';

/** kubelet's reason and component for stopping a container. */
export const KILLING_REASON = 'Killing';
export const KUBELET_COMPONENT = 'kubelet';

interface ContainerStatusView {
  readonly name?: string;
  readonly state?: { readonly running?: unknown };
}

/**
 * The containers kubelet would stop, with a `Killing` event each, when `pod` changed from
 * `old`: the pod was just marked for deletion (no deletionTimestamp before, one now), it is
 * bound to a node, and these of its containers (spec order) are running. Empty otherwise, so
 * each pod+container is reported once, on the transition. Pure.
 */
export function containersToKill(old: KubeObject | undefined, pod: KubeObject): string[] {
  if (old === undefined || old.metadata.deletionTimestamp !== undefined || pod.metadata.deletionTimestamp === undefined) return [];
  if ((podSpecOf(pod).nodeName ?? '') === '') return [];
  const statuses = ((pod.status as { containerStatuses?: ContainerStatusView[] } | undefined)?.containerStatuses ?? []).filter((s) => s.state?.running !== undefined);
  const running = new Set(statuses.map((s) => s.name));
  return (podSpecOf(pod).containers ?? []).flatMap((c) => (c.name !== undefined && running.has(c.name) ? [c.name] : []));
}

/** kubelet's message for stopping a container. */
export function killingMessage(container: string): string {
  return `Stopping container ${container}`;
}
