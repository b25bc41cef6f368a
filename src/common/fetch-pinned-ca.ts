import { request, type RequestOptions } from 'node:https';
import { checkCaPin } from './ca-pin.js';

const TIMEOUT_MS = 30_000;

/** Where the control plane serves the platform CA, unauthenticated (the site API's, and the pod-facing API's). */
export const PLATFORM_CA_PATH = '/api/sites/v1/ca';

/**
 * Fetches the platform CA (`GET <server>/api/sites/v1/ca`) without verifying the server —
 * the agent trusts nothing yet — and accepts it only when its sha256 pin equals `pin`
 * (from the registration token, or the token `options.source` names). Resolves to the CA PEM;
 * rejects on any mismatch or failure, or when `options.signal` aborts. `options.dial` is laid over
 * the request's options: where to connect instead of the URL's host (the client's `dialOptions`).
 */
export function fetchPinnedCa(server: string, pin: string, options: { readonly source?: string; readonly signal?: AbortSignal; readonly dial?: RequestOptions } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const url = `${server}${PLATFORM_CA_PATH}`;
    const req = request(url, { ...options.dial, method: 'GET', rejectUnauthorized: false, agent: false, timeout: TIMEOUT_MS, ...(options.signal === undefined ? {} : { signal: options.signal }) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== 200) return reject(new Error(`GET ${url} answered ${res.statusCode ?? 0}: ${body.slice(0, 200)}`));
        try {
          checkCaPin(body, pin, options.source);
          resolve(body);
        } catch (error) {
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
    });
    req.on('timeout', () => req.destroy(new Error(`GET ${url} timed out after ${TIMEOUT_MS / 1000}s`)));
    req.on('error', (error) => reject(new Error(`cannot fetch the CA from ${server}: ${error.message}`)));
    req.end();
  });
}
