import { pemDecodeAll } from '../../common/der/pem.js';
import { type CryptoKey, generateEcKeyPair, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../../common/x509.js';
import type { IdentityBundle, IdentityCsrs } from '../identity-bundle.js';

const YEAR = 365 * 86_400_000;
const BACKDATE_MS = 5 * 60_000;

function pem(certificate: x509.X509Certificate): string {
  return certificate.toString('pem') + '\n';
}

/**
 * A small identity CA for tests, shaped as the contract describes: a root, and a tenant CA key
 * that exists as an intermediate signed by the root (sent as `chain`) and as a self-signed
 * trust anchor with the same subject and key (sent as `serverCa`/`clientCa`). Leaves are
 * issued from CSRs (their signature checked, only their public key used), backdated 5 minutes.
 */
export class TestIdentityCa {
  private constructor(
    readonly root: x509.X509Certificate,
    readonly intermediate: x509.X509Certificate,
    readonly anchor: x509.X509Certificate,
    private readonly tenantKey: CryptoKey,
  ) {}

  static async create(now: number, tenant = 'acme'): Promise<TestIdentityCa> {
    const rootKeys = await generateEcKeyPair();
    const tenantKeys = await generateEcKeyPair();
    const validity = { notBefore: new Date(now - YEAR), notAfter: new Date(now + 10 * YEAR) };
    const caExtensions = (pathLength: number): x509.Extension[] => [
      new x509.BasicConstraintsExtension(true, pathLength, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    ];
    const root = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(), name: 'CN=Test identity root', ...validity, signingAlgorithm: SIGN_ECDSA_SHA256, keys: rootKeys, extensions: caExtensions(1),
    });
    const tenantName = `CN=Test tenant CA ${tenant}, O=${tenant}`;
    const ski = await x509.SubjectKeyIdentifierExtension.create(tenantKeys.publicKey);
    const intermediate = await x509.X509CertificateGenerator.create({
      serialNumber: randomSerial(), subject: tenantName, issuer: root.subject, ...validity, signingAlgorithm: SIGN_ECDSA_SHA256,
      publicKey: tenantKeys.publicKey, signingKey: rootKeys.privateKey, extensions: [...caExtensions(0), ski],
    });
    const anchor = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: randomSerial(), name: tenantName, ...validity, signingAlgorithm: SIGN_ECDSA_SHA256, keys: tenantKeys, extensions: [...caExtensions(0), ski],
    });
    return new TestIdentityCa(root, intermediate, anchor, tenantKeys.privateKey);
  }

  /** The trust anchor bundle (what `serverCa`/`clientCa` carry). */
  get trustPem(): string {
    return pem(this.anchor);
  }

  /** Issues both leaves for `pod`, valid from `now` − 5 min to `now` + `lifetimeMs`. */
  async issue(csrs: IdentityCsrs, options: { now: number; lifetimeMs: number; pod?: string }): Promise<IdentityBundle> {
    const notBefore = new Date(options.now - BACKDATE_MS);
    const notAfter = new Date(options.now + options.lifetimeMs);
    const pod = options.pod ?? 'web-0';
    const leaf = async (csrPem: string, usage: x509.ExtendedKeyUsage): Promise<x509.X509Certificate> => {
      const csr = new x509.Pkcs10CertificateRequest(csrPem);
      if (!(await csr.verify())) throw new Error('the CSR signature does not verify');
      return x509.X509CertificateGenerator.create({
        serialNumber: randomSerial(), subject: `CN=${pod}, OU=default, O=acme`, issuer: this.anchor.subject, notBefore, notAfter,
        signingAlgorithm: SIGN_ECDSA_SHA256, publicKey: csr.publicKey, signingKey: this.tenantKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.ExtendedKeyUsageExtension([usage]),
          new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: `${pod}.default` }, { type: 'ip', value: '127.0.0.1' }]),
        ],
      });
    };
    const server = await leaf(csrs.serverCsr, x509.ExtendedKeyUsage.serverAuth);
    const client = await leaf(csrs.clientCsr, x509.ExtendedKeyUsage.clientAuth);
    return {
      serverCertificate: pem(server),
      clientCertificate: pem(client),
      chain: pem(this.intermediate),
      serverCa: this.trustPem,
      clientCa: this.trustPem,
      notBefore: notBefore.toISOString(),
      notAfter: notAfter.toISOString(),
    };
  }

  /** Whether `certificatePem` (a leaf, possibly followed by its chain) was issued here and is valid at `now`. */
  async accepts(certificatePem: string, now: number): Promise<boolean> {
    const der = pemDecodeAll(certificatePem, 'CERTIFICATE')[0];
    if (der === undefined) return false;
    const leaf = new x509.X509Certificate(new Uint8Array(der));
    const valid = leaf.notBefore.getTime() <= now && now < leaf.notAfter.getTime();
    return valid && (await leaf.verify({ publicKey: this.anchor.publicKey, signatureOnly: true }));
  }
}
