import type { X509Certificate } from 'node:crypto';
import type { TenantCa } from './certificate-authorities.js';
import { EXTENDED_KEY_USAGE } from '../common/der/x509-extensions.js';
import { IdentityError } from './identity-error.js';
import { readWorkloadIdentity, type WorkloadIdentity } from './identity-extension.js';

/** Finds a tenant's existing CA (never makes one for a name a certificate claims). */
export type ExistingTenantCa = (tenant: string) => Promise<TenantCa | undefined>;

const unauthenticated = (why: string): IdentityError => new IdentityError('Unauthenticated', `the client certificate is not accepted: ${why}`);

/**
 * Checks a client certificate presented over TLS for renewal (TLS only asked for it; nothing
 * was verified there): the workload identity it claims names a tenant whose CA signed it
 * (signature and issuer name against the tenant trust anchor), it is valid now, it is an end
 * entity with EKU clientAuth. Resolves to the identity it carries; IdentityError
 * `Unauthenticated` otherwise.
 */
async function verifyPresentedCertificate(certificate: X509Certificate | undefined, tenantCa: ExistingTenantCa, now: Date): Promise<WorkloadIdentity> {
  if (certificate === undefined) {
    throw new IdentityError('Unauthenticated', 'renewal is authenticated by the pod\'s current client certificate: present client.crt and client.key as the TLS client certificate');
  }
  const identity = readWorkloadIdentity(certificate.raw);
  if (identity === undefined) throw unauthenticated('it carries no Edgeplane workload identity');
  const ca = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/.test(identity.tenant) ? await tenantCa(identity.tenant) : undefined;
  if (ca === undefined) throw unauthenticated(`tenant ${JSON.stringify(identity.tenant)} has no identity CA`);
  if (!certificate.checkIssued(ca.anchor) || !certificate.verify(ca.publicKey)) throw unauthenticated(`it was not issued by tenant ${identity.tenant}'s identity CA`);
  const notBefore = Date.parse(certificate.validFrom);
  const notAfter = Date.parse(certificate.validTo);
  if (!(now.getTime() >= notBefore)) throw unauthenticated(`it is not valid before ${new Date(notBefore).toISOString()}`);
  if (!(now.getTime() <= notAfter)) throw unauthenticated(`it expired at ${new Date(notAfter).toISOString()}`);
  if (certificate.ca) throw unauthenticated('it is a CA certificate');
  if (!(certificate.keyUsage ?? []).includes(EXTENDED_KEY_USAGE.clientAuth)) throw unauthenticated('it is not a client certificate (no extended key usage clientAuth)');
  return identity;
}

interface Verified {
  readonly ca: TenantCa;
  readonly identity: WorkloadIdentity;
  readonly notBefore: number;
  readonly notAfter: number;
}

/**
 * `verifyPresentedCertificate` with a memory of certificates that passed: a pod's sidecar
 * presents the same client certificate on every unseal, and checking its signature (and
 * parsing its extension) is most of the cost of authenticating one. Keyed by the SHA-256
 * fingerprint of the DER, remembered with the tenant CA that verified it (a different CA
 * object means checking again); the validity window is checked at every call. At most
 * `limit` certificates are remembered (least recently verified dropped first); failures are
 * never remembered.
 */
export class PresentedCertificateChecks {
  private readonly verified = new Map<string, Verified>();

  constructor(private readonly limit = 10_000) {}

  async verify(certificate: X509Certificate | undefined, tenantCa: ExistingTenantCa, now: Date): Promise<WorkloadIdentity> {
    if (certificate === undefined) return verifyPresentedCertificate(certificate, tenantCa, now);
    const fingerprint = certificate.fingerprint256;
    const known = this.verified.get(fingerprint);
    if (known !== undefined && (await tenantCa(known.identity.tenant)) === known.ca) {
      if (!(now.getTime() >= known.notBefore)) throw unauthenticated(`it is not valid before ${new Date(known.notBefore).toISOString()}`);
      if (!(now.getTime() <= known.notAfter)) throw unauthenticated(`it expired at ${new Date(known.notAfter).toISOString()}`);
      this.verified.delete(fingerprint);
      this.verified.set(fingerprint, known);
      return known.identity;
    }
    const identity = await verifyPresentedCertificate(certificate, tenantCa, now);
    const ca = await tenantCa(identity.tenant);
    if (ca !== undefined) {
      if (this.verified.size >= this.limit) this.verified.delete(this.verified.keys().next().value as string);
      this.verified.set(fingerprint, { ca, identity, notBefore: Date.parse(certificate.validFrom), notAfter: Date.parse(certificate.validTo) });
    }
    return identity;
  }
}
