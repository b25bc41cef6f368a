import type { ConnectTo } from '../client/connect-to.js';
import { httpsRequest, type HttpsResponse } from '../client/https-client.js';
import { readBootstrapToken } from './bootstrap-token.js';
import { type IdentityBundle, type IdentityCsrs, parseIdentityBundle } from './identity-bundle.js';
import type { ClientCredential, IdentityIssuer } from './identity-issuer.js';
import { ServerTrust } from './server-trust.js';

const BOOTSTRAP_PATH = '/api/identity/v1/certificates';
const RENEW_PATH = '/api/identity/v1/certificates/renew';

export interface HttpsIdentityIssuerOptions {
  /** The control plane's base URL, `https://host:port`. */
  readonly server: string;
  /** The file holding the bootstrap token (read at each bootstrap attempt). */
  readonly tokenFile: string;
  /** A CA bundle to trust for the control plane instead of the pinned one it serves. */
  readonly caFile?: string;
  /** Per-request idle timeout (default 30 s). */
  readonly timeoutMs?: number;
  /** The trust in the control plane to use (shared with the unseal client); default one of its own. */
  readonly trust?: ServerTrust;
  /** Where to connect instead of the server's host and port (a relay); TLS still checks the server's host name. */
  readonly connectTo?: ConnectTo;
}

/** A Kubernetes Status message, or the start of whatever else the server answered. */
function failureMessage(response: HttpsResponse): string {
  try {
    const status = response.json<{ message?: unknown; reason?: unknown }>();
    if (typeof status.message === 'string') return typeof status.reason === 'string' ? `${status.reason}: ${status.message}` : status.message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return response.body.slice(0, 200);
}

/**
 * The identity service's client: bootstrap with the token as `Authorization: Bearer`, renewal
 * over mTLS with the pod's current client certificate. The control plane's certificate is
 * checked against `--ca-file` or the CA pinned by the token (`ServerTrust`).
 */
export class HttpsIdentityIssuer implements IdentityIssuer {
  private readonly server: string;
  private readonly trust: ServerTrust;

  constructor(private readonly options: HttpsIdentityIssuerOptions) {
    this.server = options.server.replace(/\/+$/, '');
    this.trust =
      options.trust ??
      new ServerTrust({ server: this.server, ...(options.caFile === undefined ? {} : { caFile: options.caFile }), ...(options.connectTo === undefined ? {} : { connectTo: options.connectTo }) });
  }

  async bootstrap(csrs: IdentityCsrs, signal: AbortSignal): Promise<IdentityBundle> {
    const token = readBootstrapToken(this.options.tokenFile);
    const ca = await this.trust.resolve(() => token, signal);
    return this.post(BOOTSTRAP_PATH, csrs, ca, signal, { authorization: `Bearer ${token.raw}` });
  }

  async renew(csrs: IdentityCsrs, credential: ClientCredential, signal: AbortSignal): Promise<IdentityBundle> {
    const ca = await this.trust.resolve(() => readBootstrapToken(this.options.tokenFile), signal);
    return this.post(RENEW_PATH, csrs, ca, signal, {}, credential);
  }

  private async post(path: string, csrs: IdentityCsrs, ca: string, signal: AbortSignal, headers: Record<string, string>, credential?: ClientCredential): Promise<IdentityBundle> {
    const url = `${this.server}${path}`;
    let response: HttpsResponse;
    try {
      response = await httpsRequest(url, ca, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(csrs),
        signal,
        timeoutMs: this.options.timeoutMs ?? 30_000,
        ...(this.options.connectTo === undefined ? {} : { connectTo: this.options.connectTo }),
        ...(credential === undefined ? {} : { cert: credential.certificate, key: credential.key }),
      });
    } catch (error) {
      throw new Error(`POST ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (response.status !== 200) throw new Error(`POST ${url} answered ${response.status}: ${failureMessage(response)}`);
    let body: unknown;
    try {
      body = response.json<unknown>();
    } catch {
      throw new Error(`POST ${url} answered 200 with a body that is not JSON`);
    }
    return parseIdentityBundle(body);
  }
}
