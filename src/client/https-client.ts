import { type Agent, request } from 'node:https';
import { type ConnectTo, dialOptions } from './connect-to.js';

export interface HttpsResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  /** The body parsed as JSON (throws when it is not). */
  json<T = Record<string, unknown>>(): T;
}

export interface HttpsRequestOptions {
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string | Buffer;
  /** PEM client certificate and key, for mutual TLS. */
  readonly cert?: string;
  readonly key?: string;
  /** A keep-alive agent to reuse connections; default: a new connection per request. */
  readonly agent?: Agent;
  /** Aborting it destroys the request (the promise rejects). */
  readonly signal?: AbortSignal;
  /** Fails the request when the socket is idle this long. Default: no limit. */
  readonly timeoutMs?: number;
  /** Open the TCP connection here instead of the URL's host and port; TLS still checks the URL's host (`dialOptions`). */
  readonly connectTo?: ConnectTo;
}

/** An HTTPS request that trusts only `ca` (the platform CA): used by the CLI, and by tests against real servers. */
export function httpsRequest(url: string, ca: string, options: HttpsRequestOptions = {}): Promise<HttpsResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = Buffer.byteLength(options.body);
    const req = request(
      url,
      {
        ...dialOptions(url, options.connectTo, headers),
        method: options.method ?? 'GET',
        ca,
        agent: options.agent ?? false,
        ...(options.cert === undefined ? {} : { cert: options.cert, key: options.key }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        ...(options.timeoutMs === undefined ? {} : { timeout: options.timeoutMs }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: <T>() => JSON.parse(body) as T });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.on('timeout', () => req.destroy(new Error(`${options.method ?? 'GET'} ${url} timed out after ${options.timeoutMs ?? 0} ms`)));
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

export function httpsGet(url: string, ca: string, headers: Record<string, string> = {}): Promise<HttpsResponse> {
  return httpsRequest(url, ca, { headers });
}
