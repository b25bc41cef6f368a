import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { OciDescriptor } from './oci-image-layout.js';
import { ImageStoreError } from './image-store-error.js';

/** A blob is missing, or is not the bytes its descriptor names (digest or size differ). */
export class BlobVerificationError extends ImageStoreError {}

/** The largest index, manifest or config the store reads into memory. */
const MAX_JSON_BLOB = 4 * 1024 * 1024;

function algorithmOf(descriptor: OciDescriptor): string {
  return descriptor.digest.slice(0, descriptor.digest.indexOf(':'));
}

async function checkSize(path: string, descriptor: OciDescriptor, what: string): Promise<void> {
  const size = await stat(path).then(
    (s) => (s.isFile() ? s.size : undefined),
    () => undefined,
  );
  if (size === undefined) throw new BlobVerificationError(`${what} ${descriptor.digest} is missing from the image`);
  if (size !== descriptor.size) throw new BlobVerificationError(`${what} ${descriptor.digest} is ${size} bytes, but the image says ${descriptor.size}: refusing a tampered or truncated image`);
}

function mismatch(descriptor: OciDescriptor, actual: string, what: string): BlobVerificationError {
  return new BlobVerificationError(`${what} ${descriptor.digest} does not match its digest (its content hashes to ${actual}): refusing a tampered or corrupted image`);
}

/**
 * Copies a blob while hashing it, and keeps the copy only when its size and digest are the
 * descriptor's. `progress` hears the bytes copied so far.
 */
export async function copyVerifiedBlob(source: string, destination: string, descriptor: OciDescriptor, what: string, progress?: (bytes: number) => void): Promise<void> {
  await checkSize(source, descriptor, what);
  const hash = createHash(algorithmOf(descriptor));
  let bytes = 0;
  const tap = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      bytes += chunk.length;
      progress?.(bytes);
      done(null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(source), tap, createWriteStream(destination, { flags: 'wx', mode: 0o600 }));
    const actual = `${algorithmOf(descriptor)}:${hash.digest('hex')}`;
    if (bytes !== descriptor.size) throw new BlobVerificationError(`${what} ${descriptor.digest} changed size while it was read`);
    if (actual !== descriptor.digest) throw mismatch(descriptor, actual, what);
  } catch (error) {
    await rm(destination, { force: true });
    throw error;
  }
}

/** Checks a blob already in the store's staging folder against its descriptor. */
export async function verifyBlob(path: string, descriptor: OciDescriptor, what: string, progress?: (bytes: number) => void): Promise<void> {
  await checkSize(path, descriptor, what);
  const hash = createHash(algorithmOf(descriptor));
  let bytes = 0;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    bytes += chunk.length;
    progress?.(bytes);
  }
  const actual = `${algorithmOf(descriptor)}:${hash.digest('hex')}`;
  if (actual !== descriptor.digest) throw mismatch(descriptor, actual, what);
}

/** Reads a small JSON blob (index, manifest, config), verified against its descriptor, and parses it. */
export async function readVerifiedJson(path: string, descriptor: OciDescriptor, what: string): Promise<unknown> {
  if (descriptor.size > MAX_JSON_BLOB) throw new BlobVerificationError(`${what} ${descriptor.digest} is ${descriptor.size} bytes; the store reads at most ${MAX_JSON_BLOB}`);
  await checkSize(path, descriptor, what);
  const bytes = await readFile(path);
  const actual = `${algorithmOf(descriptor)}:${createHash(algorithmOf(descriptor)).update(bytes).digest('hex')}`;
  if (actual !== descriptor.digest) throw mismatch(descriptor, actual, what);
  try {
    return JSON.parse(bytes.toString('utf8')) as unknown;
  } catch {
    throw new BlobVerificationError(`${what} ${descriptor.digest} is not JSON`);
  }
}
