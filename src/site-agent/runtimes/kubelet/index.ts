/**
 * kubelet's semantics that both site runtimes share (pure): the pod record a runtime keeps,
 * the PodStatus rendered from it (phase, conditions, container states and their reasons), and
 * the crash back-off.
 */
export type { ContainerRecord, ContainerTermination, PodRecord } from './pod-record.js';
export { podPhase, podReady } from './pod-phase.js';
export { renderPodStatus } from './pod-status.js';
export { crashLoopBackOff, notStartedYet } from './container-states.js';
export { backOffAfterRestarts, nextRestartDelay, restartWaitUntil, type RestartBackoff } from './crash-backoff.js';
export { PodEvents } from './pod-events.js';
export { conditionStatusOf, ReportedStatuses } from './pod-status-drift.js';
