import { oid, sequence, set, utf8String } from './der-writer.js';

/** Attribute types used in Edgeplane's names. */
const ATTRIBUTE_OID = { CN: '2.5.4.3', L: '2.5.4.7', O: '2.5.4.10', OU: '2.5.4.11' } as const;
export type NameAttribute = keyof typeof ATTRIBUTE_OID;

/**
 * A Name (RDNSequence) with one attribute per RDN, as UTF8String, in the order given — the
 * DER order, most significant first (e.g. `[['O', tenant], ['CN', pod]]`). RFC 4514 strings
 * (and `openssl -nameopt RFC2253`) print them in the reverse order.
 */
export function distinguishedName(attributes: ReadonlyArray<readonly [NameAttribute, string]>): Buffer {
  return sequence(...attributes.map(([type, value]) => set(sequence(oid(ATTRIBUTE_OID[type]), utf8String(value)))));
}
