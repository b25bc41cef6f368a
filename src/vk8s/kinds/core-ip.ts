import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';

/**
 * IP address rules of kube's core validation, after Go's `net.ParseIP` (as built into
 * kube-apiserver 1.17): dotted-quad IPv4, IPv6 with `::` and an optional dotted-quad tail, no
 * zones. An IPv4-mapped IPv6 address counts as IPv4.
 */

/** kube's IsValidIP message (1.17). */
const INVALID_IP = 'must be a valid IP address, (e.g. 10.9.8.7)';

/** The address as 4 bytes (IPv4, also when written IPv4-mapped) or 16 bytes (IPv6); undefined when invalid. */
export function parseIp(text: string): Uint8Array | undefined {
  const v4 = parseIpv4(text);
  if (v4 !== undefined) return v4;
  const v6 = parseIpv6(text);
  if (v6 === undefined) return undefined;
  const mapped = v6.slice(0, 10).every((b) => b === 0) && v6[10] === 0xff && v6[11] === 0xff;
  return mapped ? v6.slice(12) : v6;
}

/** validation.IsValidIP as field causes. */
export function validateIp(text: string, path: string): StatusCause[] {
  return parseIp(text) === undefined ? [fieldError.invalid(path, text, INVALID_IP)] : [];
}

/**
 * kube's validateNonSpecialIP: endpoints and external IPs may not be unspecified, loopback,
 * link-local or link-local multicast addresses.
 */
export function validateNonSpecialIp(text: string, path: string): StatusCause[] {
  const ip = parseIp(text);
  if (ip === undefined) return [fieldError.invalid(path, text, 'must be a valid IP address')];
  const causes: StatusCause[] = [];
  const v4 = ip.length === 4;
  if (ip.every((b) => b === 0)) causes.push(fieldError.invalid(path, text, 'may not be unspecified (0.0.0.0)'));
  if (v4 ? ip[0] === 127 : ip.slice(0, 15).every((b) => b === 0) && ip[15] === 1) {
    causes.push(fieldError.invalid(path, text, 'may not be in the loopback range (127.0.0.0/8)'));
  }
  if (v4 ? ip[0] === 169 && ip[1] === 254 : ip[0] === 0xfe && ((ip[1] ?? 0) & 0xc0) === 0x80) {
    causes.push(fieldError.invalid(path, text, 'may not be in the link-local range (169.254.0.0/16)'));
  }
  if (v4 ? ip[0] === 224 && ip[1] === 0 && ip[2] === 0 : ip[0] === 0xff && ((ip[1] ?? 0) & 0x0f) === 0x02) {
    causes.push(fieldError.invalid(path, text, 'may not be in the link-local multicast range (224.0.0.0/24)'));
  }
  return causes;
}

function parseIpv4(text: string): Uint8Array | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^[0-9]{1,3}$/.test(p) ? Number(p) : 256));
  return bytes.every((b) => b <= 255) ? Uint8Array.from(bytes) : undefined;
}

function parseIpv6(text: string): Uint8Array | undefined {
  if (!/^[0-9A-Fa-f:.]+$/.test(text)) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const head = groups(halves[0] ?? '', halves.length === 1);
  const tail = halves.length === 2 ? groups(halves[1] ?? '', true) : undefined;
  if (head === undefined) return undefined;
  if (halves.length === 1) {
    if (head.length !== 8) return undefined;
    return toBytes(head);
  }
  if (tail === undefined || head.length + tail.length > 7) return undefined;
  return toBytes([...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail]);
}

/** The 16-bit groups of one side of `::`; a dotted quad may end the address (`v4Tail`). */
function groups(side: string, v4Tail: boolean): number[] | undefined {
  if (side === '') return [];
  const parts = side.split(':');
  const out: number[] = [];
  for (const [i, part] of parts.entries()) {
    if (part.includes('.')) {
      const v4 = v4Tail && i === parts.length - 1 ? parseIpv4(part) : undefined;
      if (v4 === undefined) return undefined;
      out.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else if (/^[0-9A-Fa-f]{1,4}$/.test(part)) {
      out.push(parseInt(part, 16));
    } else {
      return undefined;
    }
  }
  return out;
}

function toBytes(words: readonly number[]): Uint8Array {
  const bytes = new Uint8Array(16);
  words.forEach((w, i) => {
    bytes[2 * i] = w >> 8;
    bytes[2 * i + 1] = w & 0xff;
  });
  return bytes;
}

/** Go's `net.ParseCIDR` accepting `text`: an address and a prefix length within its size. */
export function isCidr(text: string): boolean {
  const slash = text.indexOf('/');
  if (slash < 0) return false;
  const address = text.slice(0, slash);
  const bits = text.slice(slash + 1);
  const ip = parseIpv4(address) ?? parseIpv6(address);
  if (ip === undefined || !/^[0-9]{1,3}$/.test(bits)) return false;
  return Number(bits) <= ip.length * 8;
}
