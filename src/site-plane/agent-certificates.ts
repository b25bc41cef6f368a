import { importEcPrivateKey, randomSerial, SIGN_ECDSA_SHA256, x509 } from '../common/x509.js';

/** The CN prefix of a site agent's client certificate: `site-agent:<agent>`. */
const AGENT_CN_PREFIX = 'site-agent:';
const DAY_MS = 24 * 3600 * 1000;
const AGENT_CERTIFICATE_DAYS = 365;

/** Why a CSR was refused (the API answers 422 with the message). */
export class CsrError extends Error {
  override readonly name = 'CsrError';
}

export interface AgentCertificateIssuer {
  /**
   * Signs the CSR's public key (the key never leaves the agent) into a client certificate
   * CN=`site-agent:<agent>`, O=<tenant>, clientAuth, valid a year. Resolves to the PEM chain
   * (certificate, then CA). Throws {@link CsrError} for a bad CSR (unparseable, bad signature).
   */
  issue(request: { csr: string; agent: string; tenant: string; now: Date }): Promise<IssuedAgentCertificate>;
}

interface IssuedAgentCertificate {
  readonly certificate: string;
  readonly serial: string;
  readonly notAfter: Date;
  /** Hex SHA-256 of the CSR's public key (SPKI): the key the CSR's signature proves the agent holds. */
  readonly keySha256: string;
}

function escapeDn(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1');
}

/** The agent a certificate subject names (`CN=site-agent:<agent>`), or undefined. */
export function agentOfCommonName(cn: string | undefined): string | undefined {
  if (cn === undefined || !cn.startsWith(AGENT_CN_PREFIX)) return undefined;
  const agent = cn.slice(AGENT_CN_PREFIX.length);
  return agent === '' ? undefined : agent;
}

/** Agent certificates signed by the platform CA. */
export function agentCertificateIssuer(ca: { certificate: string; key: string }): AgentCertificateIssuer {
  const caCert = new x509.X509Certificate(ca.certificate);
  const caKey = importEcPrivateKey(ca.key);
  return {
    async issue({ csr, agent, tenant, now }) {
      let request: x509.Pkcs10CertificateRequest;
      try {
        request = new x509.Pkcs10CertificateRequest(csr.trim());
      } catch (error) {
        throw new CsrError(`csr: not a PEM PKCS#10 certificate request: ${error instanceof Error ? error.message : String(error)}`);
      }
      let signed: boolean;
      try {
        signed = await request.verify();
      } catch (error) {
        throw new CsrError(`csr: its key or signature algorithm is not supported: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (!signed) throw new CsrError('csr: the signature does not verify with its public key');
      const serial = randomSerial();
      const notAfter = new Date(now.getTime() + AGENT_CERTIFICATE_DAYS * DAY_MS);
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: serial,
        subject: `CN=${escapeDn(AGENT_CN_PREFIX + agent)}, O=${escapeDn(tenant)}`,
        issuer: caCert.subject,
        notBefore: new Date(now.getTime() - 5 * 60 * 1000),
        notAfter,
        signingAlgorithm: SIGN_ECDSA_SHA256,
        publicKey: request.publicKey,
        signingKey: await caKey,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth]),
          await x509.AuthorityKeyIdentifierExtension.create(caCert),
        ],
      });
      const keySha256 = Buffer.from(await request.publicKey.getThumbprint('SHA-256')).toString('hex');
      return { certificate: cert.toString('pem') + '\n' + ca.certificate, serial, notAfter, keySha256 };
    },
  };
}
