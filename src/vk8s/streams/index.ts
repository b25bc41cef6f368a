/**
 * Pod stream endpoints of the vK8s API: `exec`, `attach`, `portforward` over SPDY/3.1 and
 * WebSocket channels, and `log` streaming, in front of a pluggable `PodStreamBackend`.
 */
export type { PodStreamBackend, PodTarget, StreamKind } from './types.js';
export { StreamError } from './stream-error.js';
export { handlePodUpgrade } from './handle-pod-upgrade.js';
export { upgradeRequired } from './upgrade-request.js';
export { serveLogs } from './serve-logs.js';
export { podStreamTarget, type PodScope } from './pod-target.js';
export type { SessionTiming } from './session-timing.js';
