import { randomBytes } from 'node:crypto';

/** A random positive serial of 127 bits, whose top byte is never zero (so its DER INTEGER is always 16 bytes). */
export function randomSerialNumber(random: (bytes: number) => Buffer = randomBytes): Buffer {
  const bytes = random(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40;
  return bytes;
}
