import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';
import { type CryptoKey, generateEcKeyPair, importEcPrivateKey, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../common/x509.js';

const DAY_MS = 24 * 60 * 60 * 1000;
const CA_LIFETIME_DAYS = 3650;
const SERVING_LIFETIME_DAYS = 365;
/** A serving certificate this close to expiry is reissued at start. */
const RENEW_BEFORE_DAYS = 30;

interface PlatformPkiFiles {
  readonly caCertPath: string;
  readonly caKeyPath: string;
  readonly servingCertPath: string;
  readonly servingKeyPath: string;
}

export interface PlatformPki extends PlatformPkiFiles {
  /** PEM of the platform CA certificate: what clients trust. */
  readonly caCert: string;
  /** PEM chain of the API server's serving certificate (leaf, then the CA). */
  readonly servingCert: string;
  readonly servingKey: string;
  /** What this start did: made a new CA, reissued the serving certificate, or reused both. */
  readonly outcome: 'created' | 'reissued' | 'reused';
}

export interface EnsurePkiOptions {
  /** `$EDGEPLANE_HOME/pki`. */
  readonly dir: string;
  /** Host names and IPs the serving certificate must cover, besides localhost and loopback. */
  readonly hosts: readonly string[];
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

/**
 * The platform CA and the API server's serving certificate, generated on first start and
 * reused afterwards (ECDSA P-256). The serving certificate is reissued when it no longer
 * covers the hosts, is near expiry, or was not signed by the current CA. Private keys are
 * written with mode 0600 in a 0700 folder.
 */
export async function ensurePlatformPki(options: EnsurePkiOptions): Promise<PlatformPki> {
  const now = options.now?.() ?? new Date();
  const files = pkiFiles(options.dir);
  mkdirSync(options.dir, { recursive: true, mode: 0o700 });
  let outcome: PlatformPki['outcome'] = 'reused';

  let ca: { cert: x509.X509Certificate; key: CryptoKey; pem: string };
  if (existsSync(files.caCertPath) && existsSync(files.caKeyPath)) {
    const pem = readFileSync(files.caCertPath, 'utf8');
    ca = { cert: new x509.X509Certificate(pem), key: await importEcPrivateKey(readFileSync(files.caKeyPath, 'utf8')), pem };
  } else {
    ca = await createCa(now);
    writeFileAtomic(files.caKeyPath, await privateKeyToPem(ca.key), 0o600);
    writeFileAtomic(files.caCertPath, ca.pem, 0o600);
    outcome = 'created';
  }

  const hosts = servingHosts(options.hosts);
  if (outcome === 'created' || !(await servingCertUsable(files, ca.cert, hosts, now))) {
    const keys = await generateEcKeyPair();
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(),
      subject: 'CN=edgeplane-apiserver, O=Edgeplane',
      issuer: ca.cert.subject,
      notBefore: new Date(now.getTime() - 5 * 60 * 1000),
      notAfter: new Date(now.getTime() + SERVING_LIFETIME_DAYS * DAY_MS),
      signingAlgorithm: SIGN_ECDSA_SHA256,
      publicKey: keys.publicKey,
      signingKey: ca.key,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(hosts.map((h) => ({ type: isIP(h) === 0 ? 'dns' : 'ip', value: h }))),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        await x509.AuthorityKeyIdentifierExtension.create(ca.cert),
      ],
    });
    writeFileAtomic(files.servingKeyPath, await privateKeyToPem(keys.privateKey), 0o600);
    writeFileAtomic(files.servingCertPath, cert.toString('pem') + '\n' + ca.pem, 0o600);
    if (outcome === 'reused') outcome = 'reissued';
  }
  return {
    ...files,
    caCert: ca.pem,
    servingCert: readFileSync(files.servingCertPath, 'utf8'),
    servingKey: readFileSync(files.servingKeyPath, 'utf8'),
    outcome,
  };
}

async function createCa(now: Date): Promise<{ cert: x509.X509Certificate; key: CryptoKey; pem: string }> {
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
  return { cert, key: keys.privateKey, pem: cert.toString('pem') + '\n' };
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
