import { X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';
import { generateEcKeyPair, importEcPrivateKey, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../common/x509.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const CA_LIFETIME_DAYS = 3650;
const SERVING_LIFETIME_DAYS = 365;
/** A serving certificate this close to expiry is reissued at start. */
const RENEW_BEFORE_DAYS = 30;

/** The platform CA: what clients trust, and what signs serving, client and agent certificates. */
export interface PlatformCa {
  /** PEM of the self-signed CA certificate. */
  readonly certificate: string;
  /** PEM (PKCS#8) of its private key. */
  readonly key: string;
}

interface PlatformPkiFiles {
  readonly caCertPath: string;
  readonly caKeyPath: string;
  readonly servingCertPath: string;
  readonly servingKeyPath: string;
}

export interface PlatformPki {
  /** `<dir>/ca.crt`: the platform CA certificate, written for clients. */
  readonly caCertPath: string;
  readonly servingCertPath: string;
  readonly servingKeyPath: string;
  /** PEM of the platform CA certificate: what clients trust. */
  readonly caCert: string;
  /** PEM of the platform CA's private key (kept in memory; on disk only in a folder-only PKI). */
  readonly caKey: string;
  /** PEM chain of the API server's serving certificate (leaf, then the CA). */
  readonly servingCert: string;
  readonly servingKey: string;
  /** What this start did: made a new CA in the folder, reissued the serving certificate, or reused both. */
  readonly outcome: 'created' | 'reissued' | 'reused';
}

export interface EnsurePkiOptions {
  /** `$EDGEPLANE_HOME/pki`. */
  readonly dir: string;
  /** Host names and IPs the serving certificate must cover, besides localhost and loopback. */
  readonly hosts: readonly string[];
  /**
   * The CA to use (the server's: shared through the store, see shared-platform-ca.ts); its
   * certificate is written to `ca.crt`, its key nowhere. Default: a CA kept in the folder
   * (`ca.crt`, `ca.key`), made there on first use — a PKI of one process (tests).
   */
  readonly ca?: PlatformCa;
  readonly now?: () => Date;
}

function pkiFiles(dir: string): PlatformPkiFiles {
  return {
    caCertPath: join(dir, 'ca.crt'),
    caKeyPath: join(dir, 'ca.key'),
    servingCertPath: join(dir, 'apiserver.crt'),
    servingKeyPath: join(dir, 'apiserver.key'),
  };
}

/** The CA kept in `dir` (`ca.crt` and `ca.key`), when both files are there. */
export function readFolderCa(dir: string): PlatformCa | undefined {
  const files = pkiFiles(dir);
  if (!existsSync(files.caCertPath) || !existsSync(files.caKeyPath)) return undefined;
  return { certificate: readFileSync(files.caCertPath, 'utf8'), key: readFileSync(files.caKeyPath, 'utf8') };
}

/** Whether two PEM certificates are the same certificate (DER-equal, whatever the PEM's line breaks). */
export function sameCertificate(a: string, b: string): boolean {
  return new X509Certificate(a).raw.equals(new X509Certificate(b).raw);
}

/**
 * The platform CA's certificate in `ca.crt` and the API server's serving certificate
 * (ECDSA P-256), the CA given or kept in the folder. The serving certificate is reissued
 * when it no longer covers the hosts, is near expiry, or was not signed by the CA. Private
 * keys are written with mode 0600 in a 0700 folder.
 */
export async function ensurePlatformPki(options: EnsurePkiOptions): Promise<PlatformPki> {
  const now = options.now?.() ?? new Date();
  const files = pkiFiles(options.dir);
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  let outcome: PlatformPki['outcome'] = 'reused';

  let ca = options.ca ?? readFolderCa(options.dir);
  if (ca === undefined) {
    ca = await createPlatformCa(now);
    writeFileAtomic(files.caKeyPath, ca.key, 0o600);
    outcome = 'created';
  }
  if (!existsSync(files.caCertPath) || !sameCertificate(readFileSync(files.caCertPath, 'utf8'), ca.certificate)) writeFileAtomic(files.caCertPath, ca.certificate, 0o600);

  const caCert = new x509.X509Certificate(ca.certificate);
  const hosts = servingHosts(options.hosts);
  if (outcome === 'created' || !(await servingCertUsable(files, caCert, hosts, now))) {
    const keys = await generateEcKeyPair();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: 'CN=edgeplane-apiserver, O=Edgeplane',
      issuer: caCert.subject,
      notBefore: new Date(now.getTime() - 5 * 60 * 1000),
      notAfter: new Date(now.getTime() + SERVING_LIFETIME_DAYS * DAY_MS),
      signingAlgorithm: SIGN_ECDSA_SHA256,
      publicKey: keys.publicKey,
      signingKey: await importEcPrivateKey(ca.key),
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(hosts.map((h) => ({ type: isIP(h) === 0 ? 'dns' : 'ip', value: h }))),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(caCert),
      ],
    });
    writeFileAtomic(files.servingKeyPath, await privateKeyToPem(keys.privateKey), 0o600);
    writeFileAtomic(files.servingCertPath, cert.toString('pem') + '\n' + ca.certificate, 0o600);
    if (outcome === 'reused') outcome = 'reissued';
  }
  return {
    caCertPath: files.caCertPath,
    servingCertPath: files.servingCertPath,
    servingKeyPath: files.servingKeyPath,
    caCert: ca.certificate,
    caKey: ca.key,
    servingCert: readFileSync(files.servingCertPath, 'utf8'),
    servingKey: readFileSync(files.servingKeyPath, 'utf8'),
    outcome,
  };
}

/** A new platform CA: ECDSA P-256, 10 years, path length 1. */
export async function createPlatformCa(now: Date): Promise<PlatformCa> {
  const keys = await generateEcKeyPair();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: 'CN=Edgeplane Platform CA, O=Edgeplane',
    notBefore: new Date(now.getTime() - 5 * 60 * 1000),
    notAfter: new Date(now.getTime() + CA_LIFETIME_DAYS * DAY_MS),
    signingAlgorithm: SIGN_ECDSA_SHA256,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 1, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate: cert.toString('pem') + '\n', key: await privateKeyToPem(keys.privateKey) };
}

function servingHosts(extra: readonly string[]): string[] {
  const all = ['localhost', '127.0.0.1', '::1', hostname(), ...extra].filter((h) => h !== '' && h !== '0.0.0.0' && h !== '::');
  return [...new Set(all)];
}

async function servingCertUsable(files: PlatformPkiFiles, ca: x509.X509Certificate, hosts: readonly string[], now: Date): Promise<boolean> {
  if (!existsSync(files.servingCertPath) || !existsSync(files.servingKeyPath)) return false;
  try {
    const cert = new x509.X509Certificate(readFileSync(files.servingCertPath, 'utf8'));
    if (cert.notAfter.getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    if (!(await cert.verify({ publicKey: ca.publicKey, signatureOnly: true }))) return false;
    const san = cert.getExtension(x509.SubjectAlternativeNameExtension);
    const covered = new Set(san?.names.items.map((n) => n.value) ?? []);
    return hosts.every((h) => covered.has(h));
  } catch {
    return false;
  }
}
