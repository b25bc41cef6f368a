// The sidecar's `POST /secret/unseal` (issue 7): request parsing, the cache, the control
// plane's secret API over mTLS, Vault sessions per provider, and the endpoint.
export { unsealEndpoint, UNSEAL_URL } from './unseal-endpoint.js';
export { SidecarUnsealer, type Unsealed, type UnsealSource } from './sidecar-unsealer.js';
export { SecretCache, DEFAULT_SECRET_CACHE_LIMITS, MAX_SECRET_CACHE_ENTRIES, type SecretCacheLimits, type SecretCacheStats } from './secret-cache.js';
export { HttpsPlatformSecrets, type HttpsPlatformSecretsOptions } from './https-platform-secrets.js';
export type { PlatformSecrets, UnsealedSecret } from './platform-secrets.js';
export { VaultProviders, type VaultReader } from './vault-providers.js';
export { parseUnsealRequest, type UnsealRequest } from './unseal-request.js';
export { unsealFailureOf, INTERNAL_MESSAGES } from './unseal-failure.js';
