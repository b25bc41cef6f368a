import type { KeyObject } from 'node:crypto';
import { buildCertificate } from './certificate-builder.js';
import { distinguishedName } from '../common/der/distinguished-name.js';
import { authorityKeyIdentifier, basicConstraints, KEY_USAGE, keyIdentifier, keyUsage, subjectKeyIdentifier } from '../common/der/x509-extensions.js';
import { randomSerialNumber } from './serial-number.js';
import { signerFor } from './signer.js';

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;
const ROOT_LIFETIME_MS = 10 * YEAR_MS;
const TENANT_CA_LIFETIME_MS = 5 * YEAR_MS;
/** Backdating of every certificate's notBefore, for clocks slightly behind. */
export const BACKDATE_MS = 5 * 60 * 1000;

const ROOT_SUBJECT = distinguishedName([
  ['O', 'Edgeplane'],
  ['CN', 'Edgeplane workload identity root CA'],
]);

/** A tenant CA's subject: the same in its intermediate and in its trust anchor. */
export function tenantCaSubject(tenant: string): Buffer {
  return distinguishedName([
    ['O', 'Edgeplane'],
    ['OU', tenant],
    ['CN', `${tenant} workload identity CA`],
  ]);
}

const CA_KEY_USAGE = keyUsage([KEY_USAGE.digitalSignature, KEY_USAGE.keyCertSign, KEY_USAGE.cRLSign]);

/** Whole seconds: certificates carry no fractions, and bundles report the same instants. */
export const wholeSeconds = (ms: number): Date => new Date(Math.floor(ms / 1000) * 1000);

export interface NewCa {
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
}

/** The platform identity root: self-signed, 10 years, path length 1 (tenant CAs below it, leaves below those). */
export function rootCertificate(key: NewCa, now: Date, random?: (bytes: number) => Buffer): Promise<Buffer> {
  const spki = key.publicKey.export({ type: 'spki', format: 'der' });
  return buildCertificate(
    {
      serial: randomSerialNumber(random),
      issuer: ROOT_SUBJECT,
      subject: ROOT_SUBJECT,
      notBefore: wholeSeconds(now.getTime() - BACKDATE_MS),
      notAfter: wholeSeconds(now.getTime() + ROOT_LIFETIME_MS),
      subjectPublicKeyInfo: spki,
      extensions: [basicConstraints(true, 1), CA_KEY_USAGE, subjectKeyIdentifier(keyIdentifier(spki))],
    },
    signerFor(key.privateKey),
  );
}

/** The root as a tenant CA's issuer: its subject, key identifier, validity end and key. */
export interface RootIssuer {
  readonly subject: Buffer;
  readonly keyId: Buffer;
  readonly notAfter: Date;
  readonly privateKey: KeyObject;
}

/**
 * A tenant CA's two certificates over one key: the intermediate signed by the root (5 years,
 * never past the root, path length 0) and its twin, the self-signed tenant trust anchor, with
 * the same subject, key, key identifier and validity. Bundles carry the anchor, so trusting a
 * tenant's bundle trusts that tenant's leaves only; chains carry the intermediate, so whoever
 * trusts the root verifies every tenant's leaves.
 */
export async function tenantCaCertificates(tenant: string, key: NewCa, root: RootIssuer, now: Date, random?: (bytes: number) => Buffer): Promise<{ intermediate: Buffer; anchor: Buffer }> {
  const spki = key.publicKey.export({ type: 'spki', format: 'der' });
  const keyId = keyIdentifier(spki);
  const subject = tenantCaSubject(tenant);
  const notBefore = wholeSeconds(now.getTime() - BACKDATE_MS);
  const notAfter = wholeSeconds(Math.min(now.getTime() + TENANT_CA_LIFETIME_MS, root.notAfter.getTime()));
  const common = { subject, notBefore, notAfter, subjectPublicKeyInfo: spki };
  const [intermediate, anchor] = await Promise.all([
    buildCertificate(
      { ...common, serial: randomSerialNumber(random), issuer: root.subject, extensions: [basicConstraints(true, 0), CA_KEY_USAGE, subjectKeyIdentifier(keyId), authorityKeyIdentifier(root.keyId)] },
      signerFor(root.privateKey),
    ),
    buildCertificate({ ...common, serial: randomSerialNumber(random), issuer: subject, extensions: [basicConstraints(true, 0), CA_KEY_USAGE, subjectKeyIdentifier(keyId)] }, signerFor(key.privateKey)),
  ]);
  return { intermediate, anchor };
}
