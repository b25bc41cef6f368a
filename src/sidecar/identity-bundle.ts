import type { IdentityBundle } from '../site-api/identity-bundle.js';

/** What `POST /api/identity/v1/certificates` and `…/certificates/renew` answer: the identity service's contract type. */
export type { IdentityBundle };

/** The request body of both endpoints: one PKCS#10 request per certificate. */
export interface IdentityCsrs {
  readonly serverCsr: string;
  readonly clientCsr: string;
}

const FIELDS = ['serverCertificate', 'clientCertificate', 'chain', 'serverCa', 'clientCa', 'notBefore', 'notAfter'] as const;

/** Checks that a decoded answer has the bundle's shape; throws naming the first bad field. */
export function parseIdentityBundle(value: unknown): IdentityBundle {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('the identity service answered something that is not a JSON object');
  const record = value as Record<string, unknown>;
  for (const field of FIELDS) {
    if (typeof record[field] !== 'string' || record[field] === '') throw new Error(`the identity service's answer has no "${field}"`);
  }
  return Object.fromEntries(FIELDS.map((field) => [field, record[field]])) as unknown as IdentityBundle;
}
