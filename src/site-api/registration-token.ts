import { createHash, randomBytes } from 'node:crypto';
import { x509 } from '../common/x509.js';

/** What a registration token carries: which token record, its secret, the CA pin, and where to go. */
export interface RegistrationTokenPayload {
  /** The token record's id (`/sites/tokens/<id>`): 16 lower-case hex characters. */
  readonly id: string;
  /** 32 random bytes, base64url: only its SHA-256 is stored. */
  readonly secret: string;
  /** `sha256:<hex>` of the platform CA certificate's DER encoding (what the site pins). */
  readonly ca: string;
  /** The control plane's HTTPS URL. */
  readonly server: string;
}

const PREFIX = 'ept1.';
const ID = /^[0-9a-f]{16}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;
const PIN = /^sha256:[0-9a-f]{64}$/;

/** Why a token was refused (the API answers 401 with the message). */
export class InvalidTokenError extends Error {
  override readonly name = 'InvalidTokenError';
}

/** `ept1.` + base64url of the payload's JSON (like kubeadm's join token, it also says whom to trust). */
export function formatRegistrationToken(payload: RegistrationTokenPayload): string {
  const json = JSON.stringify({ id: payload.id, secret: payload.secret, ca: payload.ca, server: payload.server });
  return PREFIX + Buffer.from(json, 'utf8').toString('base64url');
}

/** The inverse of {@link formatRegistrationToken}; throws {@link InvalidTokenError} for anything malformed. */
export function parseRegistrationToken(token: string): RegistrationTokenPayload {
  if (!token.startsWith(PREFIX)) throw new InvalidTokenError('a registration token starts with "ept1."');
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(token.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    throw new InvalidTokenError('the registration token is not base64url JSON');
  }
  const { id, secret, ca, server } = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof id !== 'string' || !ID.test(id)) throw new InvalidTokenError('the registration token has no valid id');
  if (typeof secret !== 'string' || !SECRET.test(secret)) throw new InvalidTokenError('the registration token has no valid secret');
  if (typeof ca !== 'string' || !PIN.test(ca)) throw new InvalidTokenError('the registration token has no valid CA pin ("sha256:<hex>")');
  if (typeof server !== 'string' || !/^https:\/\/\S+$/.test(server)) throw new InvalidTokenError('the registration token has no https server URL');
  return { id, secret, ca, server };
}

/** A fresh id and secret (randomness injectable for tests). */
export function newTokenCredentials(random: (bytes: number) => Buffer = randomBytes): { id: string; secret: string } {
  return { id: random(8).toString('hex'), secret: random(32).toString('base64url') };
}

/** Hex SHA-256 of a token secret: what the store keeps. */
export function secretDigest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** `sha256:<hex>` over the DER bytes of the first certificate in `pem`: the CA pin tokens carry. */
export function caPin(pem: string): string {
  const der = x509.PemConverter.decode(pem)[0];
  if (der === undefined) throw new Error('no certificate in the CA PEM');
  return `sha256:${createHash('sha256').update(Buffer.from(der)).digest('hex')}`;
}
