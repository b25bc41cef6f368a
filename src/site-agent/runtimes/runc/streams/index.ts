/**
 * kubelet's half of `kubectl logs`, `exec`, `attach`, `cp` and `port-forward` for a runc
 * site's pods (docs/RUNTIME.md, "Pod streams").
 */
export { RuncPodStreams } from './runc-pod-streams.js';
export type { PodStreamView } from './pod-stream-view.js';
