import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { busyboxImageSpec, type BuiltOciImage, writeOciArchive, writeOciLayout } from '../../../../testing/oci-image-builder.js';
import { tool, toolPath } from '../../../../testing/tools.js';
import { mountContainerRoot, unmountAllUnder, unmountContainerRoot } from './container-root.js';
import { ImageStoreError } from './image-store-error.js';
import { ImageStore } from './image-store.js';
import { BlobVerificationError } from './verified-blob.js';

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true }).map(String);
}

describe('ImageStore (umoci, as root)', () => {
  let work: string;
  let storeDir: string;
  let store: ImageStore;
  let image: BuiltOciImage;
  let gzDigest = '';
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'image-store-'));
    storeDir = join(work, 'site', 'images');
    const umoci = tool('umoci');
    store = new ImageStore({ dir: storeDir, umoci: { path: umoci.path, env: umoci.env } });
    image = writeOciLayout(join(work, 'layout'), busyboxImageSpec({ refName: 'busybox:1.35' }));
  });
  after(async () => {
    await unmountAllUnder(work);
    rmSync(work, { recursive: true, force: true });
  });

  it('imports a layout folder under its ref.name: layers verified, unpacked in order with whiteouts, config kept', async () => {
    const lines: string[] = [];
    const imported = await store.import(image.layoutDir, { progress: (line) => lines.push(line) });
    assert.equal(imported.name, 'busybox:1.35');
    assert.equal(imported.digest, image.manifestDigest);
    assert.equal(imported.alreadyPresent, false);
    assert.ok(lines.some((l) => /layer 2\/2 .* verified/.test(l)), lines.join('\n'));
    const root = imported.rootfs;
    assert.deepEqual(readFileSync(join(root, 'bin/busybox')), readFileSync(toolPath('busybox')));
    assert.equal(execFileSync(join(root, 'bin/sh'), ['-c', 'echo ran'], { encoding: 'utf8' }), 'ran\n');
    assert.equal(readFileSync(join(root, 'etc/added'), 'utf8'), 'added by layer 2\n');
    assert.equal(existsSync(join(root, 'etc/removed')), false, 'the .wh. whiteout removed /etc/removed');
    assert.deepEqual(readdirSync(join(root, 'opaque')), ['new'], 'the opaque folder hides what layer 1 had there');
    assert.deepEqual(filesUnder(root).filter((f) => f.includes('.wh.')), [], 'no whiteout file is left in the root');
    assert.equal(statSync(join(root, 'home/app/owned')).uid, 1000);
    assert.equal(statSync(join(root, 'tmp')).mode & 0o7777, 0o1777);
    assert.deepEqual(imported.config, { env: ['PATH=/bin', 'GREETING=hello'], entrypoint: ['/bin/sh', '-c'], cmd: ['echo $GREETING'], workingDir: '/tmp', user: '65534:65534' });
    assert.equal(statSync(storeDir).mode & 0o777, 0o700, 'image roots may hold set-uid programs: the store is owner-only');
  });

  it('resolves Docker-style names, and by digest', async () => {
    for (const name of ['busybox:1.35', 'docker.io/library/busybox:1.35', 'library/busybox:1.35', `busybox@${image.manifestDigest}`]) {
      const found = await store.resolve(name);
      assert.equal(found?.digest, image.manifestDigest, name);
      assert.equal(found?.config.workingDir, '/tmp');
    }
    assert.equal(await store.resolve('busybox'), undefined, 'busybox means busybox:latest, which is not there');
    assert.equal(await store.resolve(`other@${image.manifestDigest}`), undefined, 'a digest of another repository');
    await assert.rejects(store.resolve('Not A Name'), ImageStoreError);
  });

  it('imports the same image as an OCI archive under another name, sharing its root', async () => {
    const archive = join(work, 'busybox.tar');
    writeOciArchive(image.layoutDir, archive);
    const first = await store.resolve('busybox:1.35');
    const imported = await store.import(archive, { name: 'app:v1' });
    assert.equal(imported.alreadyPresent, true);
    assert.equal(imported.digest, image.manifestDigest);
    assert.equal(imported.rootfs, first?.rootfs);
    assert.deepEqual((await store.list()).map((e) => [e.name, e.digest]), [['app:v1', image.manifestDigest], ['busybox:1.35', image.manifestDigest]]);
    assert.deepEqual(readdirSync(join(storeDir, 'sha256')), [image.manifestDigest.slice(7)]);
    assert.deepEqual(readdirSync(join(storeDir, '.staging')), [], 'nothing is left in staging');
  });

  it('unpacks a gzipped archive as a new image', async () => {
    const gz = writeOciLayout(join(work, 'gz-layout'), busyboxImageSpec({ gzip: true }));
    const archive = join(work, 'gz.tar');
    writeOciArchive(gz.layoutDir, archive);
    const imported = await store.import(archive, { name: 'registry.example:5000/team/gz' });
    assert.equal(imported.name, 'registry.example:5000/team/gz:latest');
    assert.notEqual(imported.digest, image.manifestDigest);
    gzDigest = imported.digest;
    assert.equal(readFileSync(join(imported.rootfs, 'opaque/new'), 'utf8'), 'new in layer 2\n');
  });

  it('refuses a tampered layer (same size, other bytes) and a truncated one, storing nothing', async () => {
    const before = { names: await store.list(), images: readdirSync(join(storeDir, 'sha256')).sort() };
    const layer = image.layerDigests[1]?.slice(7) ?? '';
    const tampered = join(work, 'tampered');
    cpSync(image.layoutDir, tampered, { recursive: true });
    const blob = join(tampered, 'blobs/sha256', layer);
    const bytes = readFileSync(blob);
    bytes[600] = (bytes[600] ?? 0) ^ 0xff;
    writeFileSync(blob, bytes);
    await assert.rejects(store.import(tampered, { name: 'evil:1' }), (error: unknown) => error instanceof BlobVerificationError && /layer 2\/2 sha256:.* does not match its digest/.test(error.message));
    const archive = join(work, 'tampered.tar');
    writeOciArchive(tampered, archive);
    await assert.rejects(store.import(archive, { name: 'evil:2' }), /does not match its digest/);
    writeFileSync(blob, bytes.subarray(0, 1000));
    await assert.rejects(store.import(tampered, { name: 'evil:3' }), /is 1000 bytes, but the image says/);
    assert.deepEqual(await store.list(), before.names);
    assert.deepEqual(readdirSync(join(storeDir, 'sha256')).sort(), before.images);
    assert.deepEqual(readdirSync(join(storeDir, '.staging')), []);
  });

  it('asks for --name when the image does not name itself, and refuses a digest as a name', async () => {
    const unnamed = writeOciLayout(join(work, 'unnamed'), { layers: [[{ type: 'file', path: 'x', content: 'x' }]] });
    await assert.rejects(store.import(unnamed.layoutDir), /give one with --name/);
    await assert.rejects(store.import(unnamed.layoutDir, { name: `x@${image.manifestDigest}` }), /not a digest/);
    await assert.rejects(store.import(join(work, 'nowhere')), /no such file or folder/);
  });

  it('leaves no half image visible after a crashed import, and clears it on the next import', async () => {
    // What an importer killed during unpacking leaves: its staging folder (its pid is gone).
    const dead = execFileSync('sh', ['-c', 'echo $$'], { encoding: 'utf8' }).trim();
    const leftover = join(storeDir, '.staging', `${dead}-crashed`, 'image', 'rootfs');
    mkdirSync(leftover, { recursive: true });
    const names = await store.list();
    assert.equal(names.length, 3);
    await store.import(image.layoutDir, { name: 'again:1' });
    assert.equal(existsSync(join(storeDir, '.staging', `${dead}-crashed`)), false);
  });

  it('removes names, and an image when no name is left and no container root is mounted on it', async () => {
    const resolved = await store.resolve('busybox:1.35');
    assert.ok(resolved !== undefined);
    assert.deepEqual(await store.remove('app:v1'), { untagged: ['app:v1'], deleted: [] });
    assert.deepEqual(await store.remove(`again@${image.manifestDigest}`), { untagged: ['again:1'], deleted: [] }, 'by digest: every name of that repository on it');
    const container = join(work, 'container');
    const root = await mountContainerRoot(resolved.rootfs, container, false);
    assert.deepEqual(await store.remove('busybox:1.35'), { untagged: ['busybox:1.35'], deleted: [] }, 'kept while a container runs on it');
    assert.ok(existsSync(resolved.rootfs));
    await unmountContainerRoot(root);
    const last = await store.remove('registry.example:5000/team/gz');
    assert.deepEqual([...last.deleted].sort(), [image.manifestDigest, gzDigest].sort());
    assert.deepEqual(readdirSync(join(storeDir, 'sha256')), []);
    assert.deepEqual(await store.list(), []);
    await assert.rejects(store.remove('busybox:1.35'), /no image busybox:1.35 in the store/);
  });
});
