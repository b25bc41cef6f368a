/**
 * Probes and lifecycle hooks of a runc site's containers, as kubelet's prober and
 * HandlerRunner: the probe timing and verdicts (pure: probe-state.ts), the exec, httpGet and
 * tcpSocket probers, each pod's probe workers, and postStart/preStop hooks.
 */
export { PodProber } from './pod-prober.js';
export { hookTarget, runLifecycleHook } from './lifecycle-hooks.js';
export type { Dial } from './prober.js';
