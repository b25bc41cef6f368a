import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { BlindfoldTarget } from './blindfold-encrypt.js';
import { BLINDFOLD_ALG } from './blindfold-format.js';

/** Why a document handed to offline encryption is unusable. */
export class DocumentError extends Error {
  override readonly name = 'DocumentError';
}

function dataOf(document: unknown, what: string): Record<string, unknown> {
  if (document === null || typeof document !== 'object' || Array.isArray(document)) throw new DocumentError(`the ${what} is not a JSON object`);
  const data = (document as Record<string, unknown>)['data'];
  // Either the API's answer ({"data": {…}}) or its data member alone.
  return data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : (document as Record<string, unknown>);
}

function text(data: Record<string, unknown>, field: string, what: string): string {
  const value = data[field];
  if (typeof value !== 'string' || value === '') throw new DocumentError(`the ${what} has no ${field}`);
  return value;
}

function publicKeyOf(data: Record<string, unknown>): KeyObject {
  const jwk = data['public_key_jwk'];
  try {
    if (jwk !== null && typeof jwk === 'object') return createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' });
    return createPublicKey(text(data, 'public_key_pem', 'public key document'));
  } catch (error) {
    if (error instanceof DocumentError) throw new DocumentError('the public key document has neither public_key_jwk nor public_key_pem');
    throw new DocumentError(`the public key document's key cannot be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/**
 * The encryption target from the two documents the API hands out (`get_public_key` and
 * `get_policy_document`, either whole or their `data`): all offline encryption needs.
 */
export function encryptionTargetFrom(publicKeyDocument: unknown, policyDocument: unknown): BlindfoldTarget {
  const key = dataOf(publicKeyDocument, 'public key document');
  const policy = dataOf(policyDocument, 'policy document');
  const version = key['key_version'];
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) throw new DocumentError('the public key document has no key_version (a positive integer)');
  if (key['algorithm'] !== undefined && key['algorithm'] !== BLINDFOLD_ALG) throw new DocumentError(`the public key is for ${JSON.stringify(key['algorithm'])}, not ${BLINDFOLD_ALG}`);
  const publicKey = publicKeyOf(key);
  if (publicKey.asymmetricKeyType !== 'rsa') throw new DocumentError(`the public key is ${publicKey.asymmetricKeyType ?? 'unknown'}, not RSA`);
  const tenant = text(key, 'tenant', 'public key document');
  const policyTenant = text(policy, 'tenant', 'policy document');
  if (policyTenant !== tenant) throw new DocumentError(`the public key is tenant ${tenant}'s but the policy is tenant ${policyTenant}'s`);
  const id = text(policy, 'policy_id', 'policy document');
  if (!/^[1-9][0-9]{0,9}$/.test(id)) throw new DocumentError(`the policy document's policy_id "${id}" is not a positive number`);
  return {
    tenant,
    keyVersion: version,
    publicKey,
    policy: { id, namespace: text(policy, 'namespace', 'policy document'), name: text(policy, 'name', 'policy document') },
  };
}
