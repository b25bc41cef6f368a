import { createHash } from 'node:crypto';
import { SecretError } from '../../secrets/secret-error.js';
import { VaultClient, type VaultReadRequest, type VaultReadResult } from '../../secrets/vault/vault-client.js';
import { type VaultConnection, vaultConnectionOf } from '../../secrets/vault/vault-connection.js';
import { VaultError } from '../../secrets/vault/vault-error.js';
import type { IdentityMaterial } from '../identity-material.js';
import type { PlatformSecrets } from './platform-secrets.js';
import type { VaultUnsealRequest } from './unseal-request.js';

/** What the sidecar needs of a Vault client (`VaultClient`; tests may count or fake it). */
interface VaultReader {
  read(request: VaultReadRequest): Promise<VaultReadResult>;
  close(): void;
}

export interface VaultProvidersOptions {
  readonly secrets: PlatformSecrets;
  /** ms since the epoch (token leases and how long a provider is fresh). */
  readonly now: () => number;
  /** Default: a `VaultClient` with `timeoutMs`. */
  readonly connect?: (connection: VaultConnection) => VaultReader;
  /** Per Vault request (default 10 s). */
  readonly timeoutMs?: number;
}

interface Session {
  /** SHA-256 of the connection (endpoint, TLS, credentials): a provider read again with the same one keeps the session. */
  readonly fingerprint: string;
  readonly reader: VaultReader;
  /** Until when the provider need not be read again from the control plane. */
  freshUntil: number;
}

function fingerprintOf(connection: VaultConnection): string {
  return createHash('sha256').update(JSON.stringify(connection)).digest('hex');
}

/**
 * Vault reads for unseal requests of type `vault`, one logged-in session per provider. The
 * provider (a secret_management_access object, its credentials unsealed for this pod by the
 * control plane, which checks the pod against their policies every time) is read again once
 * its `cache_timeout_seconds` — the shortest `decrypt_cache_timeout` of its blindfolded
 * credentials — has passed, at every request when that is 0. A provider read again with the
 * same endpoint, TLS settings and credentials keeps its session (the Vault client's token,
 * renewed before its lease ends); a changed one gets a new client. A login or read Vault
 * refuses makes the next request read the provider again (its credentials may have changed).
 * Vault's answers are not cached: Vault is the source of truth, and `version` absent means
 * the latest.
 */
export class VaultProviders {
  private readonly sessions = new Map<string, Session>();
  private readonly pending = new Map<string, Promise<Session>>();

  constructor(private readonly options: VaultProvidersOptions) {}

  async read(request: VaultUnsealRequest, identity: IdentityMaterial): Promise<Buffer> {
    const session = await this.session(request.provider, identity);
    try {
      const result = await session.reader.read({ location: request.location, ...(request.key === undefined ? {} : { key: request.key }), ...(request.version === undefined ? {} : { version: request.version }) });
      return result.value;
    } catch (error) {
      if (error instanceof VaultError && (error.code === 'LoginRefused' || error.code === 'PermissionDenied')) session.freshUntil = 0;
      throw error;
    }
  }

  /** Closes every Vault client. */
  close(): void {
    for (const session of this.sessions.values()) session.reader.close();
    this.sessions.clear();
  }

  /** How many providers have a client now (tests). */
  get size(): number {
    return this.sessions.size;
  }

  private session(name: string, identity: IdentityMaterial): Promise<Session> {
    const current = this.sessions.get(name);
    if (current !== undefined && this.options.now() < current.freshUntil) return Promise.resolve(current);
    let pending = this.pending.get(name);
    if (pending === undefined) {
      pending = this.refresh(name, identity).finally(() => this.pending.delete(name));
      this.pending.set(name, pending);
    }
    return pending;
  }

  private async refresh(name: string, identity: IdentityMaterial): Promise<Session> {
    let connection: VaultConnection;
    let ttlSeconds: number;
    try {
      const provider = await this.options.secrets.provider(name, identity);
      connection = vaultConnectionOf(provider);
      ttlSeconds = provider.cache_timeout_seconds;
    } catch (error) {
      if ((error instanceof SecretError && error.code === 'ProviderNotFound') || error instanceof VaultError) this.forget(name);
      if (error instanceof SecretError && error.code !== 'ProviderNotFound') throw new SecretError(error.code, `provider ${name}: ${error.message}`);
      throw error;
    }
    const fingerprint = fingerprintOf(connection);
    const freshUntil = this.options.now() + Math.max(0, ttlSeconds) * 1000;
    const current = this.sessions.get(name);
    if (current?.fingerprint === fingerprint) {
      current.freshUntil = freshUntil;
      return current;
    }
    const connect = this.options.connect ?? ((c: VaultConnection) => new VaultClient(c, { now: this.options.now, ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }) }));
    let reader: VaultReader;
    try {
      reader = connect(connection);
    } finally {
      // The old session goes whether or not the new one could be made (e.g. an endpoint that is not host:port).
      this.forget(name);
    }
    const session: Session = { fingerprint, reader, freshUntil };
    this.sessions.set(name, session);
    return session;
  }

  private forget(name: string): void {
    this.sessions.get(name)?.reader.close();
    this.sessions.delete(name);
  }
}
