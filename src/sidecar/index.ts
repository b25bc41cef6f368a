// The sidecar's public surface (`edgeplane sidecar`, end-to-end tests, benchmarks).
export { startSidecar, type RunningSidecar, type StartSidecarOptions } from './start-sidecar.js';
export { DEFAULT_SIDECAR_POLICY } from './sidecar-policy.js';
export type { SidecarStateName } from './sidecar-state.js';
export { DEFAULT_IDENTITY_DIR, type IdentityOwner } from './identity-files.js';
export { KEY_ALGORITHMS, type KeyAlgorithm } from './identity-request.js';
export { DEFAULT_SECRET_CACHE_LIMITS, MAX_SECRET_CACHE_ENTRIES } from './unseal/index.js';
