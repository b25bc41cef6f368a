import { readFileSync } from 'node:fs';
import { type ConnectTo, dialOptions } from '../client/connect-to.js';
import { fetchPinnedCa } from '../common/fetch-pinned-ca.js';
import type { BootstrapToken } from './bootstrap-token.js';

export interface ServerTrustOptions {
  /** The control plane's base URL. */
  readonly server: string;
  /** A CA bundle file to trust; when given, nothing is fetched. */
  readonly caFile?: string;
  /** Where to connect instead of the server's host and port (a relay); the fetched CA is still pinned. */
  readonly connectTo?: ConnectTo;
}

/**
 * The CA the sidecar trusts for the control plane's HTTPS: `caFile`, or the CA served at
 * `GET /api/sites/v1/ca`, fetched without verification and accepted only when it matches the
 * bootstrap token's `ca_pin`. Resolved once, then kept (renewals need no token).
 */
export class ServerTrust {
  private ca: string | undefined;

  constructor(private readonly options: ServerTrustOptions) {}

  /** The trusted CA PEM; `token` is read only when the CA must be fetched and pinned. */
  async resolve(token: () => BootstrapToken, signal?: AbortSignal): Promise<string> {
    if (this.ca !== undefined) return this.ca;
    if (this.options.caFile !== undefined) {
      this.ca = readFileSync(this.options.caFile, 'utf8');
      return this.ca;
    }
    const pin = token().caPin;
    if (pin === undefined) throw new Error('the bootstrap token carries no ca_pin to check the server\'s CA against; pass --ca-file');
    const { server, connectTo } = this.options;
    this.ca = await fetchPinnedCa(server, pin, { source: 'the bootstrap token\'s ca_pin', dial: dialOptions(server, connectTo), ...(signal === undefined ? {} : { signal }) });
    return this.ca;
  }
}
