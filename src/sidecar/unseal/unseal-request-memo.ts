import { LRUCache } from 'lru-cache';
import { parseUnsealRequest, type UnsealRequest } from './unseal-request.js';

export interface UnsealRequestMemoLimits {
  /** Most bodies remembered, least recently used out first. Default 256. */
  readonly maxEntries: number;
  /** Larger bodies are parsed every time and not kept. Default 16 KiB (a blindfold location of a secret of a few kilobytes). */
  readonly maxBodyBytes: number;
}

const DEFAULTS: UnsealRequestMemoLimits = { maxEntries: 256, maxBodyBytes: 16 * 1024 };

/** A body is found by its last this many bytes — a blindfold body ends with its blob's random AES-GCM tag — and then compared whole. */
const TAIL_BYTES = 64;

interface Remembered {
  readonly body: Buffer;
  readonly request: UnsealRequest;
}

/**
 * The parsed requests of recently seen `POST /secret/unseal` bodies, by their exact bytes. A
 * workload asks for its secrets again with the same body, and on a cache hit decoding and
 * parsing that body (a sealed blob of kilobytes, copied twice on the way) was about a quarter
 * of the sidecar's work per request (`npm run bench -- unseal`; docs/SIDECAR.md). Parsing is
 * a pure function of the bytes, so the same bytes give the same request: a remembered body is
 * compared whole (a memory comparison) before its request is reused, and anything else —
 * other bytes, the same fields in another order or spacing — is parsed. Only valid requests
 * are remembered (an invalid body throws every time). The requests handed out are frozen:
 * callers share them. What is kept is request bodies (ciphertexts and Vault paths), never a
 * secret.
 */
export class UnsealRequestMemo {
  private readonly bodies: LRUCache<string, Remembered>;
  private readonly maxBodyBytes: number;

  constructor(limits: Partial<UnsealRequestMemoLimits> = {}) {
    const { maxEntries, maxBodyBytes } = { ...DEFAULTS, ...limits };
    if (!(Number.isInteger(maxEntries) && maxEntries >= 1 && Number.isInteger(maxBodyBytes) && maxBodyBytes >= 0)) throw new Error('the unseal request memo needs at least one entry and a whole number of bytes');
    this.bodies = new LRUCache<string, Remembered>({ max: maxEntries });
    this.maxBodyBytes = maxBodyBytes;
  }

  /** The request in `body` (as {@link parseUnsealRequest}, which throws for an invalid one). */
  parse(body: Buffer): UnsealRequest {
    if (body.length > this.maxBodyBytes) return parseUnsealRequest(body);
    const tail = body.toString('latin1', Math.max(0, body.length - TAIL_BYTES), body.length);
    const remembered = this.bodies.get(tail);
    if (remembered !== undefined && remembered.body.equals(body)) return remembered.request;
    const request = Object.freeze(parseUnsealRequest(body));
    // A body sharing the tail of a remembered one replaces it.
    this.bodies.set(tail, { body: Buffer.from(body), request });
    return request;
  }

  get size(): number {
    return this.bodies.size;
  }
}
