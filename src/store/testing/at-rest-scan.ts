import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** One occurrence of a searched byte string in a file. */
interface ScanHit {
  readonly file: string;
  readonly needle: string;
  readonly offset: number;
}

export interface ScanResult {
  readonly files: number;
  readonly bytes: number;
  readonly hits: readonly ScanHit[];
}

/**
 * The forms a secret could take in a store file: the plaintext and its base64 at each of the
 * three alignments it can have inside a longer base64 text (the characters that depend on
 * the neighbouring bytes left out). Give markers of 24 bytes or more.
 */
export function secretForms(marker: string): string[] {
  const bytes = Buffer.from(marker, 'utf8');
  const forms = [marker, bytes.toString('base64')];
  for (const shift of [1, 2]) {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    forms.push(text.slice(4, text.length - 4));
  }
  return forms;
}

/** The files of a SQLite store: the database, its WAL and shared memory, those that exist. */
export function sqliteStoreFiles(databasePath: string): string[] {
  return [databasePath, `${databasePath}-wal`, `${databasePath}-shm`].filter((file) => existsSync(file));
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((name) => filesUnder(join(path, name)));
}

/** Reads every file at or under `paths` and finds every occurrence of each needle (bytes of its UTF-8). */
export function scanForNeedles(paths: readonly string[], needles: readonly string[]): ScanResult {
  let files = 0;
  let bytes = 0;
  const hits: ScanHit[] = [];
  for (const file of paths.flatMap(filesUnder)) {
    const contents = readFileSync(file);
    files++;
    bytes += contents.length;
    for (const needle of needles) {
      for (let at = contents.indexOf(needle); at >= 0; at = contents.indexOf(needle, at + 1)) hits.push({ file, needle, offset: at });
    }
  }
  return { files, bytes, hits };
}
