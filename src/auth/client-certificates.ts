import { generateEcKeyPair, importEcPrivateKey, privateKeyToPem, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../common/x509.js';

interface IssuedCertificate {
  readonly serial: string;
  /** PEM chain: the client certificate, then the CA. */
  readonly certificate: string;
  readonly key: string;
  readonly ca: string;
}

export interface ClientCertificateIssuer {
  issue(subject: { user: string; tenant: string; credential: string; notAfter: Date; now: Date }): Promise<IssuedCertificate>;
}

function escapeDn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1');
}

/**
 * Client certificates for API credentials, signed by the platform CA: CN is the user, O the
 * tenant, OU the credential name (as Kubernetes reads user from CN and groups from O).
 * The key pair is made here because the credential is handed out whole (like a kubeconfig).
 */
export function platformClientCertificates(ca: { certificate: string; key: string }): ClientCertificateIssuer {
  const caCert = new x509.X509Certificate(ca.certificate);
  const caKey = importEcPrivateKey(ca.key);
  return {
    async issue({ user, tenant, credential, notAfter, now }) {
      const keys = await generateEcKeyPair();
      const serial = randomSerial();
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial,
        subject: `CN=${escapeDn(user)}, O=${escapeDn(tenant)}, OU=${escapeDn(credential)}`,
        issuer: caCert.subject,
        notBefore: new Date(now.getTime() - 5 * 60 * 1000),
        notAfter,
        signingAlgorithm: SIGN_ECDSA_SHA256,
        publicKey: keys.publicKey,
        signingKey: await caKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
          await x509.AuthorityKeyIdentifierExtension.create(caCert),
        ],
      });
      return { serial, certificate: cert.toString('pem') + '\n' + ca.certificate, key: await privateKeyToPem(keys.privateKey), ca: ca.certificate };
    },
  };
}
