import { createPublicKey, type KeyObject, X509Certificate } from 'node:crypto';
import type { Logger } from '../observability/logger.js';
import type { Clock } from '../common/clock.js';
import type { Store } from '../store/types.js';
import { type RootIssuer, rootCertificate, tenantCaCertificates } from './ca-certificates.js';
import { certificateParts } from '../common/der/certificate-parts.js';
import { pemDecodeAll, pemEncode } from '../common/der/pem.js';
import { authorityKeyIdentifier, keyIdentifier } from '../common/der/x509-extensions.js';
import { generateCaKeyPair, type IdentityKeyAlgorithm } from './identity-key-algorithm.js';
import { ROOT_CA_KEY, type RootCaRecord, tenantCaKey, type TenantCaRecord } from './identity-records.js';
import type { KeyEncryptionKey } from './key-encryption-key.js';
import { readOrCreate } from './read-or-create.js';
import { sealPrivateKey, unsealPrivateKey } from './sealed-key.js';
import { type Signer, signerFor } from './signer.js';

/** A tenant's CA as issuance uses it: key imported, names and extensions encoded once. */
export interface TenantCa {
  readonly tenant: string;
  /** DER subject: the issuer of its leaves. */
  readonly subject: Buffer;
  /** The authorityKeyIdentifier extension its leaves carry. */
  readonly authorityKeyIdentifier: Buffer;
  readonly notAfter: Date;
  readonly signer: Signer;
  readonly publicKey: KeyObject;
  /** The tenant trust anchor, parsed (renewal checks presented certificates against it). */
  readonly anchor: X509Certificate;
  /** PEM of the intermediate signed by the root (bundles' `chain`). */
  readonly intermediatePem: string;
  /** PEM of the self-signed tenant trust anchor (bundles' `serverCa` and `clientCa`). */
  readonly anchorPem: string;
}

export interface CertificateAuthoritiesOptions {
  readonly store: Store;
  readonly kek: KeyEncryptionKey;
  /** For CAs made from now on; existing ones keep theirs. */
  readonly algorithm: IdentityKeyAlgorithm;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly random?: (bytes: number) => Buffer;
}

function firstCertificate(pem: string, where: string): Buffer {
  const der = pemDecodeAll(pem, 'CERTIFICATE')[0];
  if (der === undefined) throw new Error(`${where} holds no certificate`);
  return der;
}

/**
 * The platform identity root and the tenants' CAs, kept in the store (so every server over
 * one store signs with the same keys) with their private keys sealed under the
 * key-encryption key. The root is made at {@link open}; a tenant's CA on first need. Each is
 * created with compare-and-swap (a concurrent creator's wins and is read back), then kept in
 * memory with its key imported: issuing a certificate reads nothing from the store.
 */
export class CertificateAuthorities {
  private readonly tenants = new Map<string, Promise<TenantCa>>();

  private constructor(
    private readonly options: CertificateAuthoritiesOptions,
    private readonly root: RootIssuer,
    /** PEM of the platform identity root. */
    readonly rootPem: string,
  ) {}

  static async open(options: CertificateAuthoritiesOptions): Promise<CertificateAuthorities> {
    const { store, kek } = options;
    const { value, created } = await readOrCreate(store, ROOT_CA_KEY, async () => {
      const key = await generateCaKeyPair(options.algorithm);
      const der = await rootCertificate(key, options.clock.now(), options.random);
      const record: RootCaRecord = { algorithm: options.algorithm, certificate: pemEncode(der, 'CERTIFICATE'), key: sealPrivateKey(kek, ROOT_CA_KEY, key.privateKey, options.random), created: options.clock.now().toISOString() };
      return JSON.stringify(record);
    });
    const record = JSON.parse(value) as RootCaRecord;
    const parts = certificateParts(firstCertificate(record.certificate, ROOT_CA_KEY));
    const privateKey = unsealPrivateKey(kek, ROOT_CA_KEY, record.key);
    if (record.algorithm !== options.algorithm) options.logger.warn({ root: record.algorithm, asked: options.algorithm }, 'the identity root CA was made with another key algorithm; it is kept, new tenant CAs use the one asked for');
    options.logger.info({ created, algorithm: record.algorithm }, 'identity root CA ready');
    return new CertificateAuthorities(options, { subject: parts.subject, keyId: keyIdentifier(parts.subjectPublicKeyInfo), notAfter: parts.notAfter, privateKey }, record.certificate);
  }

  /** The tenant's CA, made on first need; concurrent callers share one load. */
  tenantCa(tenant: string): Promise<TenantCa> {
    let ca = this.tenants.get(tenant);
    if (ca === undefined) {
      ca = this.createOrLoad(tenant);
      this.remember(tenant, ca);
    }
    return ca;
  }

  /** The tenant's CA when one exists (in memory or in the store); never makes one. */
  async existingTenantCa(tenant: string): Promise<TenantCa | undefined> {
    const known = this.tenants.get(tenant);
    if (known !== undefined) return known;
    const storeKey = tenantCaKey(tenant);
    const kv = await this.options.store.get(storeKey);
    if (kv === undefined) return undefined;
    const ca = Promise.resolve().then(() => this.fromRecord(tenant, storeKey, kv.value));
    this.remember(tenant, ca);
    return ca;
  }

  private remember(tenant: string, ca: Promise<TenantCa>): void {
    if (this.tenants.has(tenant)) return;
    this.tenants.set(tenant, ca);
    ca.catch(() => this.tenants.delete(tenant));
  }

  private async createOrLoad(tenant: string): Promise<TenantCa> {
    const { store, kek, clock, random } = this.options;
    const storeKey = tenantCaKey(tenant);
    const { value, created } = await readOrCreate(store, storeKey, async () => {
      const key = await generateCaKeyPair(this.options.algorithm);
      const { intermediate, anchor } = await tenantCaCertificates(tenant, key, this.root, clock.now(), random);
      const record: TenantCaRecord = {
        algorithm: this.options.algorithm,
        certificate: pemEncode(intermediate, 'CERTIFICATE'),
        anchor: pemEncode(anchor, 'CERTIFICATE'),
        key: sealPrivateKey(kek, storeKey, key.privateKey, random),
        created: clock.now().toISOString(),
      };
      return JSON.stringify(record);
    });
    if (created) this.options.logger.info({ tenant, algorithm: this.options.algorithm }, 'tenant identity CA created');
    return this.fromRecord(tenant, storeKey, value);
  }

  private fromRecord(tenant: string, storeKey: string, value: string): TenantCa {
    const { kek } = this.options;
    const record = JSON.parse(value) as TenantCaRecord;
    const privateKey = unsealPrivateKey(kek, storeKey, record.key);
    const parts = certificateParts(firstCertificate(record.certificate, storeKey));
    return {
      tenant,
      subject: parts.subject,
      authorityKeyIdentifier: authorityKeyIdentifier(keyIdentifier(parts.subjectPublicKeyInfo)),
      notAfter: parts.notAfter,
      signer: signerFor(privateKey),
      publicKey: createPublicKey(privateKey),
      anchor: new X509Certificate(record.anchor),
      intermediatePem: record.certificate,
      anchorPem: record.anchor,
    };
  }
}
