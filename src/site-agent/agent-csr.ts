import { webcrypto } from 'node:crypto';
import { type CryptoKeyPair, EC_P256, generateEcKeyPair, importEcPrivateKey, privateKeyToPem, SIGN_ECDSA_SHA256, x509 } from '../common/x509.js';

/** The subject the agent asks for; the server decides what it signs (CN `site-agent:<agent>`, O the tenant). */
function subjectOf(agent: string): string {
  return `CN=site-agent:${agent.replace(/([,+"\\<>;=])/g, '\\$1')}`;
}

/** The key pair of a stored PKCS#8 key: the public half derived from the private one. */
async function keyPairOf(keyPem: string): Promise<CryptoKeyPair> {
  const privateKey = await importEcPrivateKey(keyPem);
  const jwk = await webcrypto.subtle.exportKey('jwk', privateKey);
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y };
  const publicKey = await webcrypto.subtle.importKey('jwk', publicJwk, EC_P256, true, ['verify']);
  return { privateKey, publicKey };
}

/**
 * A PKCS#10 request for the agent's client certificate, signed with its ECDSA P-256 key:
 * `keyPem` when the agent has one (re-registration keeps its key), else a new key.
 */
export async function createAgentCsr(agent: string, keyPem?: string): Promise<{ readonly csr: string; readonly key: string }> {
  const keys = keyPem === undefined ? await generateEcKeyPair() : await keyPairOf(keyPem);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: subjectOf(agent), keys, signingAlgorithm: SIGN_ECDSA_SHA256 });
  return { csr: csr.toString('pem') + '\n', key: keyPem ?? (await privateKeyToPem(keys.privateKey)) };
}
