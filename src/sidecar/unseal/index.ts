// The sidecar's `POST /secret/unseal` (issue 7): request parsing, the cache, the control
// plane's secret API over mTLS, Vault sessions per provider, and the endpoint.
export { DEFAULT_SECRET_CACHE_LIMITS, MAX_SECRET_CACHE_ENTRIES } from './secret-cache.js';
