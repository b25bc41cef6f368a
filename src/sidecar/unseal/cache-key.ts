import type { BlindfoldUnsealRequest } from './unseal-request.js';

/**
 * Pure: the cache key of a blindfold request — its location and its encoding, so two requests
 * share an entry only when both are equal (the same blob asked with another encoding is
 * another entry). The location is a sealed blob, not a secret, and the cache counts each key's
 * length against its byte limit, so keeping it whole is bounded; it saves a hash per request
 * on the cache-hit path. The encoding comes last so that the key's tail (which the cache
 * indexes by, see `slotOf`) tells encodings apart; encoding names hold no newline, so the
 * key is unambiguous.
 */
export function cacheKeyOf(request: BlindfoldUnsealRequest): string {
  return `${request.location}\n${request.encoding}`;
}
