import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { dns1035LabelProblems } from '../apimachinery/index.js';
import type { Clock } from '../common/clock.js';
import type { PrefixCache } from '../store/prefix-cache.js';
import type { KeyValue, Store } from '../store/types.js';
import { isStoreError } from '../store/errors.js';
import { CredentialError } from './credential-error.js';
import { AuthenticationMemo } from './authentication-memo.js';
import { roleIn } from './authorize.js';
import type { ClientCertificateIssuer } from './client-certificates.js';
import { type Principal, type Role, ROLES } from './principal.js';

export const CREDENTIAL_TYPES = ['API_TOKEN', 'API_CERTIFICATE', 'KUBE_CONFIG'] as const;
export type CredentialType = (typeof CREDENTIAL_TYPES)[number];

/** What the store keeps about a credential. Never the token itself: only its SHA-256. */
export interface CredentialRecord {
  readonly name: string;
  readonly tenant: string;
  readonly user: string;
  readonly type: CredentialType;
  readonly roles: Readonly<Record<string, Role>>;
  readonly created: string;
  readonly expiration_timestamp: string;
  readonly active: boolean;
  readonly token_sha256?: string;
  readonly certificate_serial?: string;
  readonly virtual_k8s?: { readonly namespace: string; readonly name: string };
}

export interface IssueRequest {
  readonly name: string;
  readonly type: CredentialType;
  readonly expirationDays: number;
  /** Roles the credential carries; default: the issuer's. Never more than the issuer has. */
  readonly roles?: Readonly<Record<string, Role>>;
  readonly virtualK8s?: { readonly namespace: string; readonly name: string };
}

export interface Issued {
  readonly record: CredentialRecord;
  /** API_TOKEN: the token. API_CERTIFICATE / KUBE_CONFIG: certificate chain and key PEM. */
  readonly secret: { readonly token: string } | { readonly certificate: string; readonly key: string; readonly ca: string };
}

const TOKEN_PREFIX = 'ep1.';
export const MAX_EXPIRATION_DAYS = 90;
const RANK: Readonly<Record<Role, number>> = { monitor: 1, editor: 2, admin: 3 };

const recordKey = (tenant: string, name: string): string => `/auth/credentials/${tenant}/${name}`;
const tokenKey = (sha: string): string => `/auth/tokens/${sha}`;
const certificateKey = (serial: string): string => `/auth/certificates/${serial}`;
const sha256 = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A certificate serial in one spelling: lower-case hex without leading zeros. */
function normalizeSerial(serial: string): string {
  return serial.toLowerCase().replace(/^0+(?=.)/, '');
}

/** Why authentication failed; the HTTP layers answer 401 with the message. */
export class AuthenticationError extends Error {
  override readonly name = 'AuthenticationError';
}

/**
 * API credentials: API tokens (stored as SHA-256 only), client certificates issued by the
 * platform CA (found by serial), and the kubeconfigs built on them. A credential carries a
 * tenant and roles; authentication turns it into a {@link Principal}.
 */
export class CredentialService {
  private readonly tokenMemo: AuthenticationMemo;
  private readonly certificateMemo: AuthenticationMemo<CertificatePrincipal>;

  /**
   * `cache` mirrors `/auth/` (token and certificate indexes, records) so authenticating a
   * request reads memory; this process's own writes are applied to it at once.
   */
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly certificates: ClientCertificateIssuer,
    private readonly cache: PrefixCache,
  ) {
    this.tokenMemo = new AuthenticationMemo(cache);
    this.certificateMemo = new AuthenticationMemo(cache);
  }

  private async write(op: Promise<KeyValue>): Promise<KeyValue> {
    const kv = await op;
    this.cache.observe({ kv });
    return kv;
  }

  async issue(issuer: Principal, request: IssueRequest): Promise<Issued> {
    const nameProblems = dns1035LabelProblems(request.name);
    if (nameProblems.length > 0) throw CredentialError.invalid(`name: "${request.name}": ${nameProblems.join('; ')}`);
    if (!Number.isInteger(request.expirationDays) || request.expirationDays < 1 || request.expirationDays > MAX_EXPIRATION_DAYS) {
      throw CredentialError.invalid(`expiration_days: must be a whole number from 1 to ${MAX_EXPIRATION_DAYS}, got ${String(request.expirationDays)}`);
    }
    const roles = request.roles ?? issuer.roles;
    for (const [namespace, role] of Object.entries(roles)) {
      if (!ROLES.includes(role)) throw CredentialError.invalid(`spec.namespace_roles: role "${String(role)}" is not one of ${ROLES.join(', ')}`);
      const held = roleIn(issuer, namespace);
      if (held === undefined || RANK[held] < RANK[role] || (namespace === '*' && issuer.roles['*'] === undefined)) {
        throw new CredentialError('PermissionDenied', `cannot grant role ${role} in ${namespace === '*' ? 'every namespace' : `namespace ${namespace}`}: ${issuer.user} does not hold it`);
      }
    }
    return this.issueFor(issuer.tenant, `${request.name}@${issuer.tenant}`, { ...request, roles });
  }

  /** Issues without an issuer's limits: the platform itself (bootstrap, tenant creation). */
  async issueFor(tenant: string, user: string, request: IssueRequest & { roles: Readonly<Record<string, Role>> }): Promise<Issued> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + request.expirationDays * 24 * 3600 * 1000);
    const base = {
      name: request.name,
      tenant,
      user,
      type: request.type,
      roles: request.roles,
      created: now.toISOString(),
      expiration_timestamp: expires.toISOString(),
      active: true,
      ...(request.virtualK8s === undefined ? {} : { virtual_k8s: request.virtualK8s }),
    };
    try {
      if (request.type === 'API_TOKEN') {
        const token = TOKEN_PREFIX + randomBytes(32).toString('base64url');
        const record: CredentialRecord = { ...base, token_sha256: sha256(token) };
        await this.write(this.store.create(recordKey(tenant, request.name), JSON.stringify(record)));
        await this.write(this.store.create(tokenKey(record.token_sha256 ?? ''), JSON.stringify({ tenant, name: request.name })));
        return { record, secret: { token } };
      }
      const issued = await this.certificates.issue({ user, tenant, credential: request.name, notAfter: expires, now });
      const record: CredentialRecord = { ...base, certificate_serial: normalizeSerial(issued.serial) };
      await this.write(this.store.create(recordKey(tenant, request.name), JSON.stringify(record)));
      await this.write(this.store.create(certificateKey(record.certificate_serial ?? ''), JSON.stringify({ tenant, name: request.name })));
      return { record, secret: { certificate: issued.certificate, key: issued.key, ca: issued.ca } };
    } catch (error) {
      if (isStoreError(error, 'KeyExists')) throw new CredentialError('AlreadyExists', `Object already exists: api_credential ${request.name}`);
      throw error;
    }
  }

  async list(tenant: string): Promise<CredentialRecord[]> {
    const page = await this.store.list(`/auth/credentials/${tenant}/`);
    return page.items.map((kv) => JSON.parse(kv.value) as CredentialRecord);
  }

  async get(tenant: string, name: string): Promise<CredentialRecord> {
    const kv = await this.store.get(recordKey(tenant, name));
    if (kv === undefined) throw new CredentialError('NotFound', `api_credential ${name} does not exist in namespace system`);
    return JSON.parse(kv.value) as CredentialRecord;
  }

  /** Revokes at once: the next request with it is refused. */
  async revoke(tenant: string, name: string): Promise<void> {
    const kv = await this.store.get(recordKey(tenant, name));
    if (kv === undefined) throw new CredentialError('NotFound', `api_credential ${name} does not exist in namespace system`);
    const record = JSON.parse(kv.value) as CredentialRecord;
    await this.write(this.store.update(kv.key, JSON.stringify({ ...record, active: false }), kv.modRevision));
  }

  async authenticateToken(token: string): Promise<Principal> {
    const known = this.tokenMemo.principalOf(token, this.clock.now().getTime());
    if (known !== undefined) return known;
    if (!token.startsWith(TOKEN_PREFIX)) throw new AuthenticationError('the API token is not valid');
    const digest = sha256(token);
    const index = await this.cache.get(tokenKey(digest));
    if (index === undefined) throw new AuthenticationError('the API token is not valid');
    const { tenant, name } = JSON.parse(index.value) as { tenant: string; name: string };
    const { record, kv } = await this.activeRecord(tenant, name);
    const stored = Buffer.from(record.token_sha256 ?? '', 'hex');
    if (stored.length !== 32 || !timingSafeEqual(stored, Buffer.from(digest, 'hex'))) throw new AuthenticationError('the API token is not valid');
    const principal = principalOf(record);
    this.tokenMemo.remember(token, { principal, index, record: kv, expiresAtMs: Date.parse(record.expiration_timestamp) });
    return principal;
  }

  /** A client certificate already verified against the platform CA by TLS: found by serial. */
  async authenticateCertificate(serial: string): Promise<CertificatePrincipal> {
    const known = this.certificateMemo.principalOf(serial, this.clock.now().getTime());
    if (known !== undefined) return known;
    const index = await this.cache.get(certificateKey(normalizeSerial(serial)));
    if (index === undefined) throw new AuthenticationError('the client certificate is not a known credential');
    const { tenant, name } = JSON.parse(index.value) as { tenant: string; name: string };
    const { record, kv } = await this.activeRecord(tenant, name);
    const principal = { ...principalOf(record), ...(record.virtual_k8s === undefined ? {} : { virtualK8s: record.virtual_k8s }) };
    this.certificateMemo.remember(serial, { principal, index, record: kv, expiresAtMs: Date.parse(record.expiration_timestamp) });
    return principal;
  }

  private async activeRecord(tenant: string, name: string): Promise<{ record: CredentialRecord; kv: KeyValue }> {
    const kv = await this.cache.get(recordKey(tenant, name));
    if (kv === undefined) throw new AuthenticationError('the credential no longer exists');
    const record = JSON.parse(kv.value) as CredentialRecord;
    if (!record.active) throw new AuthenticationError(`credential ${name} has been revoked`);
    if (Date.parse(record.expiration_timestamp) <= this.clock.now().getTime()) throw new AuthenticationError(`credential ${name} expired at ${record.expiration_timestamp}`);
    return { record, kv };
  }
}

/** The principal of a client certificate: a kubeconfig's names the one virtual cluster it is for. */
export type CertificatePrincipal = Principal & { readonly virtualK8s?: CredentialRecord['virtual_k8s'] };

function principalOf(record: CredentialRecord): Principal {
  return { tenant: record.tenant, user: record.user, credential: record.name, roles: record.roles };
}
