import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { VaultConnection } from './vault-connection.js';
import { VaultError } from './vault-error.js';

export interface VaultHttpResponse {
  readonly status: number;
  /** The parsed JSON body, or undefined when there was none. */
  readonly body: unknown;
}

export interface VaultTransport {
  /** `path` starts with `/v1/`; the token goes in `X-Vault-Token`, never in the URL. */
  send(method: string, path: string, options?: { readonly token?: string; readonly body?: unknown }): Promise<VaultHttpResponse>;
  close(): void;
}

const NETWORK_ERRORS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ECONNABORTED']);

/** Pure: host and port of `host:port` / `[v6]:port`. */
function splitEndpoint(endpoint: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(endpoint);
  if (match === null) throw new VaultError('InvalidRequest', `server_endpoint "${endpoint}" is not host:port`);
  return { host: match[1] ?? match[2] ?? '', port: Number(match[3]) };
}

/** Pure: the error of a request that got no HTTP answer. */
function transportError(error: unknown, connection: VaultConnection): VaultError {
  const code = (error as { code?: unknown }).code;
  const reason = error instanceof Error ? error.message : String(error);
  const where = `Vault ${connection.provider} at ${connection.scheme === 'HTTPS' ? 'https' : 'http'}://${connection.endpoint}`;
  if (typeof code === 'string' && !NETWORK_ERRORS.has(code) && /CERT|SSL|TLS|EPROTO|ALTNAME|SIGNATURE|ISSUER/.test(code)) {
    return new VaultError('TlsFailure', `${where}: TLS failed (${code}): ${reason}`);
  }
  return new VaultError('Unreachable', `${where} is unreachable: ${reason}`);
}

/**
 * HTTP(S) to one Vault over a keep-alive agent: the trusted CA (else the system's), the SNI
 * and verified name (`tls.sni`, else the endpoint's host), or no verification when asked.
 * Requests that get no answer become Unreachable or TlsFailure; answers that are not JSON
 * become BadResponse.
 */
export function vaultTransport(connection: VaultConnection, timeoutMs = 10_000): VaultTransport {
  const { host, port } = splitEndpoint(connection.endpoint);
  const https = connection.scheme === 'HTTPS';
  const tls = connection.tls ?? {};
  const servername = tls.sni ?? (isIP(host) === 0 ? host : undefined);
  const agent = https
    ? new HttpsAgent({
        keepAlive: true,
        ...(tls.trustedCaPem === undefined ? {} : { ca: tls.trustedCaPem }),
        ...(servername === undefined ? {} : { servername }),
        rejectUnauthorized: tls.skipVerification !== true,
      })
    : new HttpAgent({ keepAlive: true });
  const request = https ? httpsRequest : httpRequest;
  return {
    send(method, path, options = {}) {
      const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
      const headers: Record<string, string | number> = { accept: 'application/json', 'x-vault-request': 'true' };
      if (options.token !== undefined) headers['x-vault-token'] = options.token;
      if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
      return new Promise<VaultHttpResponse>((resolve, reject) => {
        const req = request({ host, port, method, path, headers, agent, ...(https && servername !== undefined ? { servername } : {}) }, (res: IncomingMessage) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', (error) => reject(transportError(error, connection)));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (text.trim() === '') return resolve({ status: res.statusCode ?? 0, body: undefined });
            try {
              resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as unknown });
            } catch {
              reject(new VaultError('BadResponse', `Vault ${connection.provider} answered ${res.statusCode ?? 0} with a body that is not JSON`));
            }
          });
        });
        req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
        req.on('error', (error) => reject(error instanceof VaultError ? error : transportError(error, connection)));
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}
