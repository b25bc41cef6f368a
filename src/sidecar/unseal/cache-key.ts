import { createHash } from 'node:crypto';
import type { BlindfoldUnsealRequest } from './unseal-request.js';

/**
 * Pure: the cache key of a blindfold request — SHA-256 over its type, encoding and location,
 * length-prefixed, so two requests share an entry only when all three are equal (the same
 * blob asked with another encoding is another entry). The key is a digest: a location
 * (which may be large) is not kept as is.
 */
export function cacheKeyOf(request: BlindfoldUnsealRequest): string {
  const hash = createHash('sha256');
  for (const part of [request.type, request.encoding, request.location]) {
    const bytes = Buffer.from(part, 'utf8');
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    hash.update(length).update(bytes);
  }
  return hash.digest('base64url');
}
