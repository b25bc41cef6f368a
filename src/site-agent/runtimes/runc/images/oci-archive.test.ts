import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { tarArchive } from '../../../../testing/oci-image-builder.js';
import { extractOciArchive, OciArchiveError, parsePaxRecords, parseTarHeader } from './oci-archive.js';

const dir = mkdtempSync(join(tmpdir(), 'oci-archive-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const HEX = 'cd'.repeat(32);

test('tar headers are read with their checksum checked; a zero block is the end', () => {
  const tar = tarArchive([{ type: 'file', path: 'index.json', content: '{}' }]);
  assert.deepEqual(parseTarHeader(tar.subarray(0, 512)), { name: 'index.json', size: 2, type: '0' });
  assert.equal(parseTarHeader(Buffer.alloc(512)), undefined);
  const bad = Buffer.from(tar.subarray(0, 512));
  bad[0] = 0x41;
  assert.throws(() => parseTarHeader(bad), /checksum/);
});

test('pax records give the long path and size', () => {
  const record = (k: string, v: string): string => {
    const body = ` ${k}=${v}\n`;
    let length = body.length + 1;
    while (String(length).length + body.length !== length) length++;
    return `${length}${body}`;
  };
  assert.deepEqual(parsePaxRecords(Buffer.from(record('path', 'blobs/sha256/x') + record('size', '123'))), { path: 'blobs/sha256/x', size: 123 });
});

test('only layout members are written, as regular files', async () => {
  const archive = join(dir, 'ok.tar');
  writeFileSync(archive, tarArchive([
    { type: 'dir', path: 'blobs' },
    { type: 'file', path: './oci-layout', content: '{"imageLayoutVersion":"1.0.0"}' },
    { type: 'file', path: 'index.json', content: '{}' },
    { type: 'file', path: `blobs/sha256/${HEX}`, content: 'x' },
    { type: 'file', path: 'README', content: 'skipped' },
  ]));
  const out = join(dir, 'ok');
  await extractOciArchive(archive, out);
  assert.deepEqual(readdirSync(out).sort(), ['blobs', 'index.json', 'oci-layout']);
  assert.deepEqual(readdirSync(join(out, 'blobs', 'sha256')), [HEX]);
});

test('a link in the archive is refused, so nothing can point outside the store', async () => {
  const archive = join(dir, 'link.tar');
  writeFileSync(archive, tarArchive([{ type: 'symlink', path: `blobs/sha256/${HEX}`, target: '/etc/shadow' }, { type: 'file', path: 'index.json', content: '{}' }]));
  await assert.rejects(extractOciArchive(archive, join(dir, 'link')), (error: unknown) => error instanceof OciArchiveError && /not a regular file/.test(error.message));
});

test('a Docker archive and a file that is no tar are told apart', async () => {
  const docker = join(dir, 'docker.tar');
  writeFileSync(docker, tarArchive([{ type: 'file', path: 'manifest.json', content: '[]' }]));
  await assert.rejects(extractOciArchive(docker, join(dir, 'docker')), /Docker archive \(docker save\)/);
  const text = join(dir, 'text.tar');
  writeFileSync(text, 'hello'.repeat(200));
  await assert.rejects(extractOciArchive(text, join(dir, 'text')), /not a tar archive/);
});

test('a truncated archive is refused', async () => {
  const whole = tarArchive([{ type: 'file', path: 'index.json', content: 'y'.repeat(2000) }]);
  const archive = join(dir, 'short.tar');
  writeFileSync(archive, whole.subarray(0, 1024));
  await assert.rejects(extractOciArchive(archive, join(dir, 'short')), /truncated/);
});
