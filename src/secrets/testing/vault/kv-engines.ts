/** A response of the Vault test server: status and JSON body (none for 204). */
export interface VaultResponse {
  readonly status: number;
  readonly body?: unknown;
}

/** Vault's error shape: `{"errors": [...]}` for every status ≥ 400. */
export function vaultError(status: number, ...errors: string[]): VaultResponse {
  return { status, body: { errors } };
}

/** Vault's envelope around secret data (request_id and the lease fields). */
export function envelope(requestId: string, data: unknown, leaseDuration = 0): Record<string, unknown> {
  return { request_id: requestId, lease_id: '', renewable: false, lease_duration: leaseDuration, data, wrap_info: null, warnings: null, auth: null };
}

interface Kv2Version {
  readonly data: Record<string, unknown>;
  readonly created_time: string;
  deletion_time: string;
  destroyed: boolean;
}

interface Kv2Secret {
  readonly created_time: string;
  updated_time: string;
  readonly versions: Kv2Version[];
}

/** KV version 1 (`/v1/<mount>/<path>`): one unversioned map per path. */
export class KvV1Engine {
  readonly version = 1;
  private readonly secrets = new Map<string, Record<string, unknown>>();

  write(path: string, data: Record<string, unknown>): void {
    this.secrets.set(path, { ...data });
  }

  handle(method: string, path: string, body: unknown, requestId: string): VaultResponse {
    if (method === 'GET') {
      const data = this.secrets.get(path);
      // KV v1 advises a 768 h re-read interval (lease_duration 2764800) when the data sets no ttl.
      return data === undefined ? vaultError(404) : { status: 200, body: envelope(requestId, data, 2764800) };
    }
    if (method === 'POST' || method === 'PUT') {
      if (body === null || typeof body !== 'object' || Array.isArray(body)) return vaultError(400, 'missing data fields');
      this.write(path, body as Record<string, unknown>);
      return { status: 204 };
    }
    if (method === 'DELETE') {
      this.secrets.delete(path);
      return { status: 204 };
    }
    return vaultError(405, 'unsupported operation');
  }
}

/** KV version 2 (`/v1/<mount>/data/<path>`, `/metadata/<path>`): versions, soft deletes, metadata. */
export class KvV2Engine {
  readonly version = 2;
  private readonly secrets = new Map<string, Kv2Secret>();

  constructor(private readonly timestamp: () => string) {}

  /** Writes a new version; resolves to its number. */
  write(path: string, data: Record<string, unknown>): number {
    const now = this.timestamp();
    const secret = this.secrets.get(path) ?? { created_time: now, updated_time: now, versions: [] };
    secret.versions.push({ data: { ...data }, created_time: now, deletion_time: '', destroyed: false });
    secret.updated_time = now;
    this.secrets.set(path, secret);
    return secret.versions.length;
  }

  private versionMetadata(v: Kv2Version, number: number): Record<string, unknown> {
    return { created_time: v.created_time, custom_metadata: null, deletion_time: v.deletion_time, destroyed: v.destroyed, version: number };
  }

  handle(method: string, kind: string, path: string, query: URLSearchParams, body: unknown, requestId: string): VaultResponse {
    if (kind === 'data') return this.data(method, path, query, body, requestId);
    if (kind === 'metadata' && method === 'GET') return this.metadata(path, requestId);
    return vaultError(405, 'unsupported operation');
  }

  private data(method: string, path: string, query: URLSearchParams, body: unknown, requestId: string): VaultResponse {
    const secret = this.secrets.get(path);
    if (method === 'GET') {
      const raw = query.get('version') ?? '0';
      if (!/^[0-9]+$/.test(raw)) return vaultError(400, `error parsing version: strconv.Atoi: parsing "${raw}": invalid syntax`);
      if (secret === undefined) return vaultError(404);
      const number = Number(raw) === 0 ? secret.versions.length : Number(raw);
      const version = secret.versions[number - 1];
      if (version === undefined) return vaultError(404);
      const metadata = this.versionMetadata(version, number);
      // A deleted or destroyed version is 404 with its metadata and no data, as Vault answers.
      if (version.deletion_time !== '' || version.destroyed) return { status: 404, body: envelope(requestId, { data: null, metadata }) };
      return { status: 200, body: envelope(requestId, { data: version.data, metadata }) };
    }
    if (method === 'POST' || method === 'PUT') {
      const data = (body as { data?: unknown } | null)?.data;
      if (data === null || typeof data !== 'object' || Array.isArray(data)) return vaultError(400, 'no data provided');
      const number = this.write(path, data as Record<string, unknown>);
      return { status: 200, body: envelope(requestId, this.versionMetadata(this.secrets.get(path)?.versions[number - 1] as Kv2Version, number)) };
    }
    if (method === 'DELETE') {
      const latest = secret?.versions[secret.versions.length - 1];
      if (latest !== undefined) latest.deletion_time = this.timestamp();
      return { status: 204 };
    }
    return vaultError(405, 'unsupported operation');
  }

  private metadata(path: string, requestId: string): VaultResponse {
    const secret = this.secrets.get(path);
    if (secret === undefined) return vaultError(404);
    const versions = Object.fromEntries(secret.versions.map((v, i) => [String(i + 1), { created_time: v.created_time, deletion_time: v.deletion_time, destroyed: v.destroyed }]));
    return {
      status: 200,
      body: envelope(requestId, {
        cas_required: false,
        created_time: secret.created_time,
        current_version: secret.versions.length,
        custom_metadata: null,
        delete_version_after: '0s',
        max_versions: 0,
        oldest_version: 0,
        updated_time: secret.updated_time,
        versions,
      }),
    };
  }
}
