/**
 * kubelet's pod workers for a runc site: one {@link RuncPodWorker} per pod, deciding each sync
 * with the pure `computePodActions` and acting on the site's services.
 */
export { RuncPodWorker } from './runc-pod-worker.js';
export { removePodTraces } from './pod-cleanup.js';
export type { PodServices, RuncSite } from './pod-worker-deps.js';
