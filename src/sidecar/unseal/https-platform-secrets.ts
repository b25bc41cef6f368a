import { request } from 'node:https';
import { type ConnectTo, dialOptions } from '../../client/connect-to.js';
import type { ResolvedProvider } from '../../secrets/resolved-provider.js';
import { SECRET_HTTP_STATUS, SecretError, type SecretErrorCode } from '../../secrets/secret-error.js';
import type { IdentityMaterial } from '../identity-material.js';
import { type AgentLease, IdentityAgents } from './identity-agents.js';
import type { PlatformSecrets, UnsealedSecret } from './platform-secrets.js';
import { UnsealError } from './unseal-error.js';

const UNSEAL_PATH = '/api/secret_management/v1/unseal';
const PROVIDERS_PATH = '/api/secret_management/v1/providers';

export interface HttpsPlatformSecretsOptions {
  /** The control plane's base URL, `https://host:port`. */
  readonly server: string;
  /** The CA to trust for the control plane (the identity client's: `--ca-file` or the token's pinned CA). */
  readonly trustedCa: () => Promise<string>;
  /** Per-request idle timeout (default 15 s). */
  readonly timeoutMs?: number;
  /** Connections per identity to the control plane (default 64). */
  readonly maxSockets?: number;
  /** Where to connect instead of the server's host and port (a relay); TLS still checks the server's host name. */
  readonly connectTo?: ConnectTo;
}

interface RawAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** Errors of a keep-alive socket the server closed just as it was reused: the request never reached it. */
const STALE_SOCKET_ERRORS = new Set(['ECONNRESET', 'EPIPE']);

function isSecretErrorCode(value: unknown): value is SecretErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(SECRET_HTTP_STATUS, value);
}

/**
 * The control plane's secret API over mutual TLS with the pod's current client certificate:
 * one keep-alive agent per identity (`IdentityAgents`), rebuilt when the identity is renewed.
 * A request whose reused keep-alive socket turns out closed is sent once more (it never
 * reached the server). Answers that are the secret API's errors become `SecretError`s with
 * the control plane's code and message; anything else is `UnsealError('Internal')` whose
 * message (for the log) says what happened. Bodies are never logged.
 */
export class HttpsPlatformSecrets implements PlatformSecrets {
  private readonly server: string;
  private readonly agents: IdentityAgents;

  constructor(private readonly options: HttpsPlatformSecretsOptions) {
    this.server = options.server.replace(/\/+$/, '');
    this.agents = new IdentityAgents(options.maxSockets === undefined ? {} : { maxSockets: options.maxSockets });
  }

  async unseal(location: string, identity: IdentityMaterial): Promise<UnsealedSecret> {
    const data = await this.call('POST', UNSEAL_PATH, identity, JSON.stringify({ location }));
    const plaintext = typeof data['plaintext'] === 'string' ? data['plaintext'] : undefined;
    const seconds = data['cache_timeout_seconds'];
    if (plaintext === undefined || !/^[A-Za-z0-9+/]*={0,2}$/.test(plaintext)) throw new UnsealError('Internal', `POST ${this.server}${UNSEAL_PATH} answered 200 without data.plaintext in base64`);
    return { plaintext: Buffer.from(plaintext, 'base64'), cacheTimeoutSeconds: typeof seconds === 'number' && seconds > 0 ? seconds : 0 };
  }

  async provider(name: string, identity: IdentityMaterial): Promise<ResolvedProvider> {
    const path = `${PROVIDERS_PATH}/${encodeURIComponent(name)}`;
    const data = await this.call('GET', path, identity);
    if (typeof data['server_endpoint'] !== 'string' || typeof data['auth'] !== 'object' || data['auth'] === null || typeof data['tls'] !== 'object' || data['tls'] === null) {
      throw new UnsealError('Internal', `GET ${this.server}${path} answered 200 without a provider`);
    }
    return data as unknown as ResolvedProvider;
  }

  close(): void {
    this.agents.close();
  }

  /** The `data` object of a 200 answer; throws the control plane's SecretError otherwise. */
  private async call(method: 'GET' | 'POST', path: string, identity: IdentityMaterial, body?: string): Promise<Record<string, unknown>> {
    const url = `${this.server}${path}`;
    let ca: string;
    try {
      ca = await this.options.trustedCa();
    } catch (error) {
      throw new UnsealError('Internal', `no CA to trust for the control plane: ${error instanceof Error ? error.message : String(error)}`);
    }
    let answer: RawAnswer;
    try {
      answer = await this.send(method, url, identity, ca, body);
    } catch (error) {
      throw new UnsealError('Internal', `${method} ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(answer.body.toString('utf8'));
    } catch {
      throw new UnsealError('Internal', `${method} ${url} answered ${answer.status} with a body that is not JSON`);
    }
    const fields = (parsed ?? {}) as { data?: unknown; reason?: unknown; message?: unknown };
    if (answer.status === 200) {
      if (typeof fields.data !== 'object' || fields.data === null) throw new UnsealError('Internal', `${method} ${url} answered 200 without a data object`);
      return fields.data as Record<string, unknown>;
    }
    if (isSecretErrorCode(fields.reason) && typeof fields.message === 'string') throw new SecretError(fields.reason, fields.message);
    throw new UnsealError('Internal', `${method} ${url} answered ${answer.status}, which is not an answer of the secret API`);
  }

  private async send(method: string, url: string, identity: IdentityMaterial, ca: string, body: string | undefined): Promise<RawAnswer> {
    for (let attempt = 1; ; attempt++) {
      const lease = this.agents.acquire(identity, ca);
      try {
        return await this.once(method, url, lease, body);
      } catch (error) {
        const stale = (error as { reusedSocket?: boolean }).reusedSocket === true && STALE_SOCKET_ERRORS.has((error as NodeJS.ErrnoException).code ?? '');
        if (!stale || attempt > 1) throw error;
      } finally {
        lease.release();
      }
    }
  }

  private once(method: string, url: string, lease: AgentLease, body: string | undefined): Promise<RawAnswer> {
    const timeoutMs = this.options.timeoutMs ?? 15_000;
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = { accept: 'application/json' };
      if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      const req = request(url, { ...dialOptions(url, this.options.connectTo, headers), method, agent: lease.agent, timeout: timeoutMs }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (error) => reject(Object.assign(error, { reusedSocket: req.reusedSocket })));
      req.end(body);
    });
  }
}
