/** How a secret was encoded before it was sealed or stored (the seed's unseal `encoding_type`). */
export type EncodingType = 'EncodingNone' | 'EncodingBase64';

const ENCODING_TYPES: readonly EncodingType[] = ['EncodingNone', 'EncodingBase64'];

/** Why a secret cannot be decoded as asked; never carries the secret. */
export class EncodingError extends Error {
  override readonly name = 'EncodingError';
}

/** Pure: the encoding type of a request field (absent means EncodingNone). */
export function parseEncodingType(raw: unknown): EncodingType {
  if (raw === undefined || raw === null || raw === '') return 'EncodingNone';
  if (typeof raw === 'string' && (ENCODING_TYPES as readonly string[]).includes(raw)) return raw as EncodingType;
  throw new EncodingError(`encoding_type: ${JSON.stringify(raw)} is not one of ${ENCODING_TYPES.join(', ')}`);
}

/**
 * Pure: the original secret bytes. EncodingBase64 means the secret was Base64-encoded before
 * it was encrypted or stored (`edgeplane secret encrypt --base64`): it is decoded here, and
 * text that is not Base64 (surrounding whitespace aside) is an error.
 */
export function decodeSecret(bytes: Buffer, encoding: EncodingType): Buffer {
  if (encoding === 'EncodingNone') return bytes;
  const text = bytes.toString('latin1').trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new EncodingError('the secret is not Base64 text, but encoding_type is EncodingBase64');
  return Buffer.from(text, 'base64');
}
