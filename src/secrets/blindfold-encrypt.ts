import { CompactEncrypt, type KeyInput } from 'jose';
import { BLINDFOLD_ALG, BLINDFOLD_ENC, BLINDFOLD_TYP, type BlindfoldHeader, wrapLocation } from './blindfold-format.js';

/** What a blindfold blob is made for: the tenant's public key (of a version) and a secret policy. */
export interface BlindfoldTarget {
  readonly tenant: string;
  readonly keyVersion: number;
  /** The tenant's RSA public key of that version (a CryptoKey, KeyObject or JWK). */
  readonly publicKey: KeyInput;
  readonly policy: { readonly id: string; readonly namespace: string; readonly name: string };
}

/**
 * Encrypts `plaintext` for the platform (what `edgeplane secret encrypt` does offline): only
 * the platform holds the private key, and it decrypts only for callers the policy allows.
 * Resolves to the `string:///…` location.
 */
export async function blindfoldEncrypt(plaintext: Uint8Array, target: BlindfoldTarget): Promise<string> {
  const header: BlindfoldHeader = {
    alg: BLINDFOLD_ALG,
    enc: BLINDFOLD_ENC,
    typ: BLINDFOLD_TYP,
    tenant: target.tenant,
    key_version: target.keyVersion,
    policy_id: target.policy.id,
    policy_namespace: target.policy.namespace,
    policy_name: target.policy.name,
  };
  const jwe = await new CompactEncrypt(plaintext).setProtectedHeader({ ...header }).encrypt(target.publicKey);
  return wrapLocation(jwe);
}
