// The sidecar's public surface (`edgeplane sidecar`, end-to-end tests, benchmarks).
export { startSidecar, type RunningSidecar, type StartSidecarOptions } from './start-sidecar.js';
export { DEFAULT_SIDECAR_POLICY, sidecarPolicy, type SidecarPolicy } from './sidecar-policy.js';
export type { SidecarState, SidecarStateName, SidecarEvent } from './sidecar-state.js';
export { DEFAULT_IDENTITY_DIR } from './identity-files.js';
export { KEY_ALGORITHMS, type KeyAlgorithm } from './identity-request.js';
export type { IdentityBundle, IdentityCsrs } from './identity-bundle.js';
export type { IdentityIssuer, ClientCredential } from './identity-issuer.js';
export { notReadyResponse, type SidecarEndpoint, type SidecarRequest, type SidecarResponse, textResponse } from './sidecar-endpoint.js';
export { IDENTITY_ENDPOINTS } from './sidecar-http-app.js';
export { unsealEndpoint, UNSEAL_URL, SidecarUnsealer, SecretCache, DEFAULT_SECRET_CACHE_LIMITS, MAX_SECRET_CACHE_ENTRIES, HttpsPlatformSecrets, VaultProviders, parseUnsealRequest } from './unseal/index.js';
export type { PlatformSecrets, UnsealedSecret, SecretCacheLimits, SecretCacheStats, UnsealRequest, VaultReader } from './unseal/index.js';
