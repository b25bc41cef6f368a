import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { KvV1Engine, KvV2Engine, vaultError, type VaultResponse } from './kv-engines.js';
import { VaultAuth, type TokenOptions } from './vault-auth.js';
import { handleVaultRequest, type VaultState } from './vault-handler.js';

export interface VaultTestServerOptions {
  /** Serve HTTPS with this certificate (PEM chain) and key; default plain HTTP. */
  readonly tls?: { readonly certificate: string; readonly key: string };
  /** Milliseconds since the epoch (token lifetimes); default Date.now. */
  readonly now?: () => number;
}

export interface VaultTestServer {
  /** `http(s)://127.0.0.1:<port>`. */
  readonly url: string;
  /** `127.0.0.1:<port>` (a secret_management_access server_endpoint). */
  readonly endpoint: string;
  /** A token that never expires and may use every path. */
  readonly rootToken: string;
  readonly auth: VaultAuth;
  /** Method and path of every request served (never headers or bodies). */
  readonly requests: Array<{ readonly method: string; readonly path: string }>;
  /** Mounts a KV engine (`secret` is KV v2 and `kv` KV v1 from the start). */
  mountKv(mount: string, version: 1 | 2): void;
  /** Writes a KV v2 version (resolves to its number) or a KV v1 secret, as the API would. */
  writeKv2(mount: string, path: string, data: Record<string, unknown>): number;
  writeKv1(mount: string, path: string, data: Record<string, unknown>): void;
  createToken(options?: TokenOptions): string;
  createAppRole(name: string, options?: { tokenTtlSeconds?: number; tokenMaxTtlSeconds?: number; paths?: readonly string[] }): { roleId: string; secretId: string };
  /** While sealed, every request is 503 `Vault is sealed`. */
  setSealed(sealed: boolean): void;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function tokenOf(request: IncomingMessage): string | undefined {
  const header = request.headers['x-vault-token'];
  if (typeof header === 'string') return header;
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '');
  return bearer?.[1];
}

function send(response: ServerResponse, answer: VaultResponse): void {
  if (answer.body === undefined) return void response.writeHead(answer.status).end();
  const text = JSON.stringify(answer.body);
  response.writeHead(answer.status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) }).end(text);
}

/**
 * A stand-in for HashiCorp Vault in tests, written from Vault's documented HTTP API (no Vault
 * can be installed here): KV v1 and v2, token auth, AppRole login, renew-self, Vault's error
 * JSON. HTTP, or HTTPS with a certificate from a private CA. Listens on 127.0.0.1.
 */
export async function startVaultTestServer(options: VaultTestServerOptions = {}): Promise<VaultTestServer> {
  const now = options.now ?? Date.now;
  const auth = new VaultAuth(now);
  const state: VaultState = { auth, mounts: new Map(), sealed: false, requestId: () => randomUUID() };
  const timestamp = (): string => new Date(now()).toISOString();
  state.mounts.set('secret', new KvV2Engine(timestamp));
  state.mounts.set('kv', new KvV1Engine());
  const requests: Array<{ method: string; path: string }> = [];

  const listener = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://vault');
    requests.push({ method: request.method ?? 'GET', path: url.pathname });
    readBody(request)
      .then((text) => {
        let body: unknown;
        try {
          body = text.trim() === '' ? undefined : JSON.parse(text);
        } catch (error) {
          return send(response, vaultError(400, `failed to parse JSON input: ${error instanceof Error ? error.message : String(error)}`));
        }
        send(response, handleVaultRequest(state, { method: request.method ?? 'GET', path: url.pathname, query: url.searchParams, token: tokenOf(request), body }));
      })
      .catch(() => send(response, vaultError(500, 'internal error')));
  };
  const server: Server = options.tls === undefined ? createHttpServer(listener) : createHttpsServer({ cert: options.tls.certificate, key: options.tls.key }, listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const engine = <T extends KvV1Engine | KvV2Engine>(mount: string, version: 1 | 2): T => {
    const found = state.mounts.get(mount);
    if (found?.version !== version) throw new Error(`no KV v${version} engine is mounted at ${mount}`);
    return found as T;
  };
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`,
    endpoint: `127.0.0.1:${port}`,
    rootToken: auth.createToken().id,
    auth,
    requests,
    mountKv: (mount, version) => void state.mounts.set(mount, version === 2 ? new KvV2Engine(timestamp) : new KvV1Engine()),
    writeKv2: (mount, path, data) => engine<KvV2Engine>(mount, 2).write(path, data),
    writeKv1: (mount, path, data) => engine<KvV1Engine>(mount, 1).write(path, data),
    createToken: (tokenOptions) => auth.createToken(tokenOptions).id,
    createAppRole: (name, roleOptions) => auth.createAppRole(name, roleOptions),
    setSealed: (sealed) => void (state.sealed = sealed),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
