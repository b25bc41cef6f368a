import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { httpsRequest } from '../client/https-client.js';

export interface ConnectionOptions {
  home: string;
  server?: string;
  token?: string;
  caFile?: string;
}

/** The options every client command shares: where the server is and how to authenticate. */
export function addConnectionOptions(command: Command): Command {
  return command
    .addOption(new Option('--home <dir>', 'state folder written by `edgeplane server` (server-url, api-token, pki/ca.crt)').env('EDGEPLANE_HOME').default('.edgeplane'))
    .addOption(new Option('--server <url>', 'control plane URL (default: <home>/server-url)').env('EDGEPLANE_SERVER'))
    .addOption(new Option('--token <token>', 'API token (default: <home>/api-token)').env('EDGEPLANE_TOKEN'))
    .addOption(new Option('--ca-file <file>', 'CA bundle to trust (default: <home>/pki/ca.crt)').env('EDGEPLANE_CA_FILE'));
}

/** A failure answered by the server, printed like kubectl: `Error from server (NotFound): …`. */
export class ServerError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

const REASONS: Record<number, string> = { 3: 'InvalidArgument', 5: 'NotFound', 6: 'AlreadyExists', 7: 'Forbidden', 9: 'FailedPrecondition', 10: 'Conflict', 12: 'MethodNotAllowed', 13: 'InternalError', 14: 'ServiceUnavailable', 16: 'Unauthorized' };

function readTrimmed(path: string, what: string): string {
  if (!existsSync(path)) throw new Error(`${what} not found at ${path}; pass it as a flag or start the server with this --home`);
  return readFileSync(path, 'utf8').trim();
}

/** A client of the configuration API over HTTPS, trusting the platform CA. */
export class ApiClient {
  private readonly server: string;
  private readonly token: string;
  private readonly ca: string;

  constructor(options: ConnectionOptions) {
    const home = resolve(options.home);
    this.server = (options.server ?? readTrimmed(join(home, 'server-url'), 'the server URL')).replace(/\/$/, '');
    this.token = options.token ?? readTrimmed(join(home, 'api-token'), 'the API token');
    this.ca = readFileSync(options.caFile ?? join(home, 'pki', 'ca.crt'), 'utf8');
  }

  get url(): string {
    return this.server;
  }

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await httpsRequest(`${this.server}${path}`, this.ca, {
      method,
      headers: { authorization: `APIToken ${this.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(res.body);
    } catch {
      throw new ServerError(res.status, 'Unknown', `the server answered ${res.status} with a body that is not JSON: ${res.body.slice(0, 200)}`);
    }
    if (res.status !== 200) {
      // Config API errors carry a gRPC code; the site and identity APIs answer Kubernetes Status with its reason.
      const error = parsed as { code?: number; message?: string; kind?: string; reason?: string };
      const reason = error.kind === 'Status' && typeof error.reason === 'string' ? error.reason : REASONS[error.code ?? -1];
      throw new ServerError(res.status, reason ?? `HTTP ${res.status}`, error.message ?? res.body);
    }
    return parsed as T;
  }
}
