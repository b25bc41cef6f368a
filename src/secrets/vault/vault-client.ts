import type { VaultConnection } from './vault-connection.js';
import { VaultError } from './vault-error.js';
import { parseVaultLocation, parseVaultVersion, readSecretFrom, secretBytes, type VaultLocation } from './vault-secret.js';
import { VaultSession } from './vault-session.js';
import { vaultTransport, type VaultHttpResponse, type VaultTransport } from './vault-transport.js';

/** A read as the seed's unseal request of type `vault` asks for it. */
export interface VaultReadRequest {
  readonly location: string;
  readonly key?: string;
  readonly version?: string | number;
}

export interface VaultReadResult {
  /** The whole secret as JSON, or the key's value. */
  readonly value: Buffer;
  readonly kvVersion: 1 | 2;
  readonly version?: number;
}

export interface VaultClientOptions {
  /** ms since the epoch, for token leases (tests move it). */
  readonly now?: () => number;
  readonly timeoutMs?: number;
}

function errorsOf(body: unknown): string {
  const errors = (body as { errors?: unknown } | undefined)?.errors;
  return Array.isArray(errors) && errors.length > 0 ? errors.map(String).join('; ') : '';
}

/**
 * A client of one Vault (one secret_management_access provider), for the sidecar: it logs
 * in (a token, or AppRole with renewal before the lease ends), reads KV v2 (latest or a
 * version) and KV v1 secrets, whole or one key, and turns every failure into a VaultError
 * (login refused 403; secret, key or version missing 404; unreachable 503; TLS failure 502).
 */
export class VaultClient {
  private readonly transport: VaultTransport;
  private readonly session: VaultSession;

  constructor(
    private readonly connection: VaultConnection,
    options: VaultClientOptions = {},
  ) {
    this.transport = vaultTransport(connection, options.timeoutMs);
    this.session = new VaultSession(connection, this.transport, options.now);
  }

  async read(request: VaultReadRequest): Promise<VaultReadResult> {
    const location = parseVaultLocation(request.location);
    const version = parseVaultVersion(request.version);
    const path = version === undefined ? location.apiPath : `${location.apiPath}?version=${version}`;
    let res = await this.get(path);
    // A revoked or expired AppRole token: log in again once.
    if (res.status === 403 && this.session.invalidate()) res = await this.get(path);
    if (res.status === 200) {
      const secret = readSecretFrom(res.body, location, version);
      return { value: secretBytes(secret, request.key, request.location), kvVersion: secret.kvVersion, ...(secret.version === undefined ? {} : { version: secret.version }) };
    }
    throw await this.failure(res, request.location, location, version);
  }

  close(): void {
    this.transport.close();
  }

  private async get(path: string): Promise<VaultHttpResponse> {
    return this.transport.send('GET', path, { token: await this.session.token() });
  }

  private async failure(res: VaultHttpResponse, raw: string, location: VaultLocation, version: number | undefined): Promise<VaultError> {
    const reason = errorsOf(res.body);
    const provider = `Vault ${this.connection.provider}`;
    switch (res.status) {
      case 404:
        return this.notFound(res, raw, location, version);
      case 403:
        return new VaultError('PermissionDenied', `${provider} refused to read ${raw}: ${reason || 'permission denied'} (the token is not valid or its policies do not allow this path)`);
      case 400:
        return new VaultError('InvalidRequest', `${provider} refused the read of ${raw}: ${reason || 'bad request'}`);
      case 429:
      case 500:
      case 502:
      case 503:
      case 504:
        return new VaultError('VaultUnavailable', `${provider} is unavailable (${res.status})${reason === '' ? '' : `: ${reason}`}`);
      default:
        return new VaultError('BadResponse', `${provider} answered the read of ${raw} with ${res.status}${reason === '' ? '' : `: ${reason}`}`);
    }
  }

  /** 404: a deleted version, a version that never existed, or no secret at all. */
  private async notFound(res: VaultHttpResponse, raw: string, location: VaultLocation, version: number | undefined): Promise<VaultError> {
    const deleted = (res.body as { data?: { metadata?: { deletion_time?: unknown; destroyed?: unknown } } } | undefined)?.data?.metadata;
    const which = version === undefined ? 'the latest version' : `version ${version}`;
    if (deleted !== undefined) return new VaultError('VersionNotFound', `${which} of ${raw} was ${deleted.destroyed === true ? 'destroyed' : 'deleted'}`);
    if (version !== undefined && location.metadataPath !== undefined) {
      const metadata = await this.get(location.metadataPath).catch(() => undefined);
      if (metadata?.status === 200) return new VaultError('VersionNotFound', `version ${version} of ${raw} does not exist`);
    }
    return new VaultError('SecretNotFound', `${raw} does not exist in Vault ${this.connection.provider}`);
  }
}
