const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600 };

/**
 * Pure: a secret policy's `decrypt_cache_timeout` ("30s", "15m", "6h") in seconds; 0 (do not
 * cache) when it is absent. The secret_policy kind has already checked the syntax.
 */
export function cacheTimeoutSeconds(timeout: string | undefined): number {
  const match = /^([0-9]+)(s|m|h)$/.exec(timeout ?? '');
  if (match === null) return 0;
  return Number(match[1]) * (UNIT_SECONDS[match[2] ?? 's'] ?? 1);
}
