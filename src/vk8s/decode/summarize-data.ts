/**
 * kube-apiserver's `summarizeData`: how a body that could not be decoded is quoted in the
 * error — `<empty>`, the text itself when it starts with `{`, hex otherwise, cut at
 * `maxLength` bytes with ` ...`.
 */
export function summarizeData(data: Uint8Array, maxLength = 30): string {
  if (data.length === 0) return '<empty>';
  const cut = data.length > maxLength ? data.subarray(0, maxLength) : data;
  const suffix = data.length > maxLength ? ' ...' : '';
  const bytes = Buffer.from(cut.buffer, cut.byteOffset, cut.byteLength);
  return (data[0] === 0x7b ? bytes.toString('utf8') : bytes.toString('hex')) + suffix;
}
