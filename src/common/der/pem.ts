/** PEM armour (RFC 7468): base64 in 64-character lines between BEGIN/END lines. */
export function pemEncode(der: Uint8Array, label: string): string {
  const base64 = Buffer.from(der).toString('base64');
  const lines: string[] = [];
  for (let i = 0; i < base64.length; i += 64) lines.push(base64.slice(i, i + 64));
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** The DER of every PEM block labelled `label` in `text`, in order. */
export function pemDecodeAll(text: string, label: string): Buffer[] {
  const found: Buffer[] = [];
  for (const match of text.matchAll(BLOCK)) {
    if (match[1] !== label) continue;
    const body = (match[2] ?? '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) continue;
    found.push(Buffer.from(body, 'base64'));
  }
  return found;
}
