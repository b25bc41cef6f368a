/** The outcome of decoding as Go's base64.StdEncoding: bytes, or the offset Go reports as corrupt. */
export type GoBase64Result = { readonly bytes: Buffer } | { readonly corruptAt: number };

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const VALID = new Uint8Array(256);
for (const ch of ALPHABET) VALID[ch.charCodeAt(0)] = 1;
const PAD = 0x3d;
const isNewline = (c: number | undefined): boolean => c === 0x0a || c === 0x0d;

/**
 * Decodes `text` (as its UTF-8 bytes) with Go's `base64.StdEncoding.DecodeString` rules:
 * padding required, `\r` and `\n` skipped anywhere, nothing after the padding; on failure the
 * byte offset of Go's `illegal base64 data at input byte N`.
 */
export function decodeGoBase64(text: string): GoBase64Result {
  const src = Buffer.from(text, 'utf8');
  let si = 0;
  while (si < src.length) {
    const quantum = decodeQuantum(src, si);
    if (typeof quantum === 'object') return { corruptAt: quantum.corruptAt };
    if (quantum === si) break;
    si = quantum;
  }
  return { bytes: Buffer.from(text.replace(/[\r\n]/g, ''), 'base64') };
}

/** One 4-character quantum from `start`: the next offset, or where Go finds corruption. */
function decodeQuantum(src: Buffer, start: number): number | { corruptAt: number } {
  let si = start;
  for (let j = 0; j < 4; j++) {
    if (si === src.length) {
      // Go: the end inside a quantum is corrupt unless it came before any character of it.
      return j === 0 ? si : { corruptAt: si - j };
    }
    const c = src[si] ?? 0;
    si++;
    if (VALID[c] === 1) continue;
    if (isNewline(c)) {
      j--;
      continue;
    }
    if (c !== PAD || j < 2) return { corruptAt: si - 1 };
    if (j === 2) {
      while (si < src.length && isNewline(src[si])) si++;
      if (si === src.length) return { corruptAt: src.length };
      if (src[si] !== PAD) return { corruptAt: si - 1 };
      si++;
    }
    while (si < src.length && isNewline(src[si])) si++;
    return si < src.length ? { corruptAt: si } : si;
  }
  return si;
}
