import { request as httpRequest, type Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, type Agent as HttpsAgent } from 'node:https';

/** One request a fuzz case makes. */
export interface FuzzRequest {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
  /** A streaming answer (a watch): the status is taken from the headers and the stream closed. */
  readonly stream?: boolean;
}

export interface FuzzAnswer {
  readonly status: number;
  readonly contentType: string;
  /** The body, or its first 64 KiB (nothing for streams). */
  readonly body: string;
}

/** Where requests go: a base URL and, for HTTPS, the CA to trust and an optional client certificate. */
export interface FuzzEndpoint {
  readonly url: string;
  readonly agent: HttpAgent | HttpsAgent;
  readonly ca?: string;
  readonly cert?: { readonly cert: string; readonly key: string };
}

const BODY_KEPT = 64 * 1024;

/**
 * Sends `r` and resolves to the answer; rejects when there is none within `timeoutMs` (the
 * socket idle) or the connection fails — for a fuzz run, a server that stopped answering.
 */
export async function send(endpoint: FuzzEndpoint, r: FuzzRequest, timeoutMs = 15_000): Promise<FuzzAnswer> {
  try {
    return await attempt(endpoint, r, timeoutMs);
  } catch (error) {
    // A kept-alive connection the server had closed (after a 413 or 431 it closes them) fails
    // when reused: node's documented case for one retry on a fresh connection.
    if (error instanceof ReusedSocketError) return attempt(endpoint, r, timeoutMs);
    // A request head over node's 16 KiB limit is answered 431 and the connection closed; the
    // client may see the reset before the answer.
    if (headOverLimit(r) && isReset(error)) return { status: 431, contentType: '', body: 'connection reset: the request head is over the server limit' };
    throw error;
  }
}

class ReusedSocketError extends Error {}

const HEAD_LIMIT = 16 * 1024;
const headOverLimit = (r: FuzzRequest): boolean => r.path.length + Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) > HEAD_LIMIT - 512;
const isReset = (error: unknown): boolean => ['ECONNRESET', 'EPIPE'].includes((error as NodeJS.ErrnoException).code ?? '');

function attempt(endpoint: FuzzEndpoint, r: FuzzRequest, timeoutMs: number): Promise<FuzzAnswer> {
  return new Promise((resolve, reject) => {
    // Concatenated, not resolved: a path such as `//status` is sent as it is.
    const url = new URL(`${endpoint.url}${r.path}`);
    const headers: Record<string, string | number> = { ...r.headers };
    if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);
    const options = {
      method: r.method,
      headers,
      agent: endpoint.agent,
      timeout: timeoutMs,
      ...(endpoint.ca === undefined ? {} : { ca: endpoint.ca }),
      ...(endpoint.cert === undefined ? {} : endpoint.cert),
    };
    const onResponse = (res: IncomingMessage): void => {
      const status = res.statusCode ?? 0;
      const contentType = String(res.headers['content-type'] ?? '');
      if (r.stream === true && status < 300) {
        res.destroy();
        resolve({ status, contentType, body: '' });
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < BODY_KEPT) chunks.push(chunk);
        size += chunk.length;
      });
      res.on('end', () => resolve({ status, contentType, body: Buffer.concat(chunks).toString('utf8').slice(0, BODY_KEPT) }));
      res.on('error', reject);
    };
    const req = url.protocol === 'https:' ? httpsRequest(url, options, onResponse) : httpRequest(url, options, onResponse);
    req.on('error', (error) => reject(req.reusedSocket && isReset(error) ? new ReusedSocketError(error.message) : error));
    req.on('timeout', () => req.destroy(new Error(`no answer to ${r.method} ${r.path.slice(0, 200)} within ${timeoutMs} ms`)));
    req.end(r.body);
  });
}
