// @peculiar/x509 needs reflect-metadata loaded before it; keep this the only place that imports it.
import 'reflect-metadata';
import { webcrypto, randomBytes } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);

export { x509 };
export type CryptoKey = webcrypto.CryptoKey;
export type CryptoKeyPair = webcrypto.CryptoKeyPair;
type EcKeyGenParams = webcrypto.EcKeyGenParams;
type EcdsaParams = webcrypto.EcdsaParams;

export const EC_P256: EcKeyGenParams = { name: 'ECDSA', namedCurve: 'P-256' };
export const SIGN_ECDSA_SHA256: EcdsaParams = { name: 'ECDSA', hash: 'SHA-256' };

export function generateEcKeyPair(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(EC_P256, true, ['sign', 'verify']);
}

export async function privateKeyToPem(key: CryptoKey): Promise<string> {
  const der = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(der, 'PRIVATE KEY') + '\n';
}

export async function importEcPrivateKey(pem: string): Promise<CryptoKey> {
  const der = x509.PemConverter.decode(pem)[0];
  if (der === undefined) throw new Error('no PEM block in the private key');
  return webcrypto.subtle.importKey('pkcs8', der, EC_P256, true, ['sign']);
}

/** A random positive 128-bit serial number, as hex. */
export function randomSerial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}
