import { createReadStream } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { createGunzip } from 'node:zlib';
import { ImageStoreError } from './image-store-error.js';

/**
 * Reading an OCI archive (`oci-archive:` of skopeo and buildah: a tar of an OCI image layout,
 * possibly gzipped) into a folder. Only what a layout holds is written — `oci-layout`,
 * `index.json` and `blobs/<algorithm>/<hex>` — and only as regular files: a link, a device or
 * a path outside those names is refused or skipped, so an archive can never write elsewhere.
 * The blobs are verified afterwards by their digests like those of a layout folder.
 */

/** The archive is not a tar of an OCI image layout, or holds something a layout never does. */
export class OciArchiveError extends ImageStoreError {}

const BLOCK = 512;
const LAYOUT_MEMBER = /^(oci-layout|index\.json|blobs\/(sha256\/[a-f0-9]{64}|sha512\/[a-f0-9]{128}))$/;

/** One tar header, as far as the archive reader needs it. */
export interface TarHeader {
  readonly name: string;
  readonly size: number;
  /** The type flag: '0' file, '5' folder, '2' symlink, 'x' pax header, 'L' GNU long name, … */
  readonly type: string;
}

function text(block: Buffer, start: number, length: number): string {
  const field = block.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? field.length : end).toString('utf8');
}

function number(block: Buffer, start: number, length: number): number {
  const field = block.subarray(start, start + length);
  if (((field[0] ?? 0) & 0x80) !== 0) {
    // GNU base-256: big-endian, the top bit of the first byte set.
    let value = (field[0] ?? 0) & 0x7f;
    for (const byte of field.subarray(1)) value = value * 256 + byte;
    return value;
  }
  const digits = text(block, start, length).trim();
  return digits === '' ? 0 : parseInt(digits, 8);
}

/** A 512-byte tar header: undefined for an all-zero block (the archive's end). Pure. */
export function parseTarHeader(block: Buffer): TarHeader | undefined {
  if (block.length !== BLOCK) throw new OciArchiveError('truncated tar header');
  if (block.every((b) => b === 0)) return undefined;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] as number);
  const recorded = number(block, 148, 8);
  if (sum !== recorded) throw new OciArchiveError('not a tar archive (a header\'s checksum is wrong)');
  const magic = block.subarray(257, 263).toString('latin1');
  const prefix = magic === 'ustar\0' ? text(block, 345, 155) : '';
  const name = text(block, 0, 100);
  const size = number(block, 124, 12);
  if (!Number.isSafeInteger(size) || size < 0) throw new OciArchiveError(`tar member ${name} has an invalid size`);
  return { name: prefix === '' ? name : `${prefix}/${name}`, size, type: text(block, 156, 1) || '0' };
}

/** The `path` and `size` records of a pax extended header. Pure. */
export function parsePaxRecords(data: Buffer): { path?: string; size?: number } {
  const result: { path?: string; size?: number } = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    if (space < 0) break;
    const length = parseInt(data.subarray(at, space).toString('latin1'), 10);
    if (!Number.isSafeInteger(length) || length <= 0 || at + length > data.length) throw new OciArchiveError('bad pax header in the archive');
    const record = data.subarray(space + 1, at + length - 1).toString('utf8');
    const equals = record.indexOf('=');
    const key = record.slice(0, equals);
    const value = record.slice(equals + 1);
    if (key === 'path') result.path = value;
    else if (key === 'size') result.size = Number(value);
    at += length;
  }
  return result;
}

/** Reads exact byte counts from a stream of chunks. */
class ChunkReader {
  private buffered: Buffer = Buffer.alloc(0);
  constructor(private readonly chunks: AsyncIterator<Buffer>) {}

  /** Up to `max` bytes (at least one), or undefined at the end. */
  async some(max: number): Promise<Buffer | undefined> {
    if (this.buffered.length === 0) {
      const next = await this.chunks.next();
      if (next.done === true) return undefined;
      this.buffered = next.value;
    }
    const out = this.buffered.subarray(0, max);
    this.buffered = this.buffered.subarray(out.length);
    return out;
  }

  /** Exactly `n` bytes; undefined when the stream ends before the first; an error when it ends inside. */
  async exactly(n: number): Promise<Buffer | undefined> {
    const parts: Buffer[] = [];
    let have = 0;
    while (have < n) {
      const part = await this.some(n - have);
      if (part === undefined) {
        if (have === 0) return undefined;
        throw new OciArchiveError('the archive is truncated');
      }
      parts.push(part);
      have += part.length;
    }
    return Buffer.concat(parts, n);
  }

  /** Passes the next `n` bytes to `sink` (or drops them). */
  async pass(n: number, sink?: (chunk: Buffer) => Promise<void>): Promise<void> {
    let left = n;
    while (left > 0) {
      const part = await this.some(Math.min(left, 1024 * 1024));
      if (part === undefined) throw new OciArchiveError('the archive is truncated');
      if (sink !== undefined) await sink(part);
      left -= part.length;
    }
  }
}

async function isGzip(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/**
 * Extracts the layout held by an OCI archive into `destination` (an empty folder of the
 * store). `progress` hears the bytes written so far.
 */
export async function extractOciArchive(archive: string, destination: string, progress?: (bytes: number) => void): Promise<void> {
  const file = createReadStream(archive);
  const stream = (await isGzip(archive)) ? file.pipe(createGunzip()) : file;
  const reader = new ChunkReader((stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]());
  const seen = new Set<string>();
  let written = 0;
  let pax: { path?: string; size?: number } = {};
  let longName: string | undefined;
  try {
    for (;;) {
      const block = await reader.exactly(BLOCK);
      const header = block === undefined ? undefined : parseTarHeader(block);
      if (header === undefined) break;
      const size = pax.size ?? header.size;
      const padded = Math.ceil(size / BLOCK) * BLOCK;
      if (header.type === 'x' || header.type === 'L') {
        if (size > 1024 * 1024) throw new OciArchiveError('an archive header is too large');
        const data = (await reader.exactly(padded)) ?? Buffer.alloc(0);
        if (header.type === 'x') pax = parsePaxRecords(data.subarray(0, size));
        else longName = text(data, 0, size);
        continue;
      }
      const name = (pax.path ?? longName ?? header.name).replace(/^(\.\/)+/, '').replace(/\/+$/, '');
      pax = {};
      longName = undefined;
      if (header.type === '5' || header.type === 'g' || name === '' || name === '.') {
        await reader.pass(padded);
        continue;
      }
      if (header.type !== '0' && header.type !== '7') {
        throw new OciArchiveError(`archive member ${name} is not a regular file (tar type "${header.type}"); an OCI archive holds only files`);
      }
      if (!LAYOUT_MEMBER.test(name)) {
        seen.add(name);
        await reader.pass(padded);
        continue;
      }
      if (seen.has(name)) throw new OciArchiveError(`archive member ${name} appears twice`);
      seen.add(name);
      const target = join(destination, name);
      await mkdir(join(target, '..'), { recursive: true });
      const out: FileHandle = await open(target, 'wx', 0o600);
      try {
        await reader.pass(size, async (chunk) => {
          await out.write(chunk);
          written += chunk.length;
          progress?.(written);
        });
      } finally {
        await out.close();
      }
      await reader.pass(padded - size);
    }
  } finally {
    file.destroy();
  }
  if (!seen.has('index.json')) {
    if (seen.has('manifest.json')) throw new OciArchiveError('this is a Docker archive (docker save), not an OCI archive: convert it with "skopeo copy docker-archive:<file> oci-archive:<file>"');
    throw new OciArchiveError('not an OCI archive: it has no index.json');
  }
}
