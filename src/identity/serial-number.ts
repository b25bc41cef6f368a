import { randomBytes } from 'node:crypto';

/** Random bytes drawn from one 4 KiB `randomBytes` call at a time (a call per serial costs more than the serial). */
function pooledRandom(): (bytes: number) => Buffer {
  let pool = Buffer.alloc(0);
  let offset = 0;
  return (bytes) => {
    if (offset + bytes > pool.length) {
      pool = randomBytes(Math.max(4096, bytes));
      offset = 0;
    }
    offset += bytes;
    return Buffer.from(pool.subarray(offset - bytes, offset));
  };
}

const pooled = pooledRandom();

/** A random positive serial of 127 bits, whose top byte is never zero (so its DER INTEGER is always 16 bytes). */
export function randomSerialNumber(random: (bytes: number) => Buffer = pooled): Buffer {
  const bytes = random(16);
  bytes[0] = ((bytes[0] ?? 0) & 0x3f) | 0x40;
  return bytes;
}
