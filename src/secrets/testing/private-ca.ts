import { isIP } from 'node:net';
import { generateEcKeyPair, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509, type CryptoKeyPair } from '../../common/x509.js';

export interface IssuedPair {
  /** PEM of the leaf certificate. */
  readonly certificate: string;
  /** PEM (PKCS#8) of its private key. */
  readonly key: string;
}

export interface PrivateCa {
  /** PEM of the self-signed CA certificate (what clients trust). */
  readonly certificate: string;
  /** A server certificate for the names (DNS names and IP addresses), or a client certificate. */
  issue(options: { readonly commonName: string; readonly names?: readonly string[]; readonly usage: 'server' | 'client' }): Promise<IssuedPair>;
}

/** A throwaway ECDSA P-256 CA for tests (HTTPS test servers, client certificates). */
export async function createPrivateCa(name = 'Edgeplane Test CA'): Promise<PrivateCa> {
  const now = Date.now();
  const keys: CryptoKeyPair = await generateEcKeyPair();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${name}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 86_400_000),
    signingAlgorithm: SIGN_ECDSA_SHA256,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
  });
  return {
    certificate: ca.toString('pem') + '\n',
    async issue({ commonName, names = [], usage }) {
      const leafKeys = await generateEcKeyPair();
      const extensions: x509.Extension[] = [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ];
      if (names.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(names.map((n) => ({ type: isIP(n) === 0 ? 'dns' : 'ip', value: n }))));
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: randomSerial(),
        subject: `CN=${commonName}`,
        issuer: ca.subject,
        notBefore: new Date(now - 60_000),
        notAfter: new Date(now + 86_400_000),
        signingAlgorithm: SIGN_ECDSA_SHA256,
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        extensions,
      });
      return { certificate: leaf.toString('pem') + '\n', key: await privateKeyToPem(leafKeys.privateKey) };
    },
  };
}
