import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { busyboxImageSpec, type BuiltOciImage, writeOciArchive, writeOciLayout } from '../testing/oci-image-builder.js';
import { toolPath } from '../testing/tools.js';

const BIN = new URL('../../../bin/edgeplane.js', import.meta.url).pathname;

describe('edgeplane image', () => {
  let dir: string;
  let home: string;
  let image: BuiltOciImage;
  const edgeplane = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, [BIN, 'image', ...args], { encoding: 'utf8', env: { ...process.env, EDGEPLANE_SITE_HOME: home, EDGEPLANE_UMOCI: toolPath('umoci') } });
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'image-cli-'));
    home = join(dir, 'site');
    image = writeOciLayout(join(dir, 'layout'), busyboxImageSpec({ refName: 'busybox:1.35' }));
    writeOciArchive(image.layoutDir, join(dir, 'busybox.tar'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('imports an archive and a layout folder, lists them and removes them', () => {
    const fromArchive = edgeplane('import', join(dir, 'busybox.tar'));
    assert.equal(fromArchive.status, 0, fromArchive.stderr);
    assert.match(fromArchive.stdout, new RegExp(`^busybox:1.35 ${image.manifestDigest} in [\\d.]+ s\\n$`));
    assert.match(fromArchive.stderr, /reading OCI archive .*\n[\s\S]*layer 2\/2 sha256:\w+ \([\d.]+ MiB\) verified\n[\s\S]*unpacking 2 layer/);
    assert.ok(existsSync(join(home, 'images', 'sha256', image.manifestDigest.slice(7), 'rootfs', 'bin', 'busybox')));
    const fromFolder = edgeplane('import', image.layoutDir, '--name', 'ghcr.io/team/tool:2');
    assert.equal(fromFolder.status, 0, fromFolder.stderr);
    assert.match(fromFolder.stdout, /^ghcr.io\/team\/tool:2 sha256:\w+ \(already stored: name added\)/);
    const list = edgeplane('list');
    assert.equal(list.status, 0, list.stderr);
    assert.match(list.stdout, new RegExp(`^NAME +DIGEST +IMPORTED\\nbusybox:1.35 +${image.manifestDigest} +\\d+s\\nghcr.io/team/tool:2 +${image.manifestDigest}`));
    const json = JSON.parse(edgeplane('list', '-o', 'json').stdout) as { name: string }[];
    assert.deepEqual(json.map((i) => i.name), ['busybox:1.35', 'ghcr.io/team/tool:2']);
    assert.equal(edgeplane('remove', 'busybox:1.35').stdout, 'Untagged: busybox:1.35\n');
    assert.equal(edgeplane('rm', 'ghcr.io/team/tool:2').stdout, `Untagged: ghcr.io/team/tool:2\nDeleted: ${image.manifestDigest}\n`);
    assert.equal(edgeplane('list').stdout, 'NAME   DIGEST   IMPORTED\n');
  });

  it('says clearly what is wrong: a tampered layer, a missing name, a missing image, a missing umoci', () => {
    const archive = join(dir, 'busybox.tar');
    const bytes = readFileSync(archive);
    const layer = bytes.indexOf(Buffer.from('added by layer 2'));
    bytes[layer] = 0x41;
    writeFileSync(join(dir, 'tampered.tar'), bytes);
    const tampered = edgeplane('import', join(dir, 'tampered.tar'));
    assert.equal(tampered.status, 1);
    assert.match(tampered.stderr, /edgeplane: layer 2\/2 sha256:\w+ does not match its digest .*refusing a tampered or corrupted image/);
    assert.equal(edgeplane('list').stdout, 'NAME   DIGEST   IMPORTED\n');
    const unnamed = writeOciLayout(join(dir, 'unnamed'), { layers: [] });
    assert.match(edgeplane('import', unnamed.layoutDir).stderr, /does not name its image .*--name <name:tag>/);
    assert.match(edgeplane('remove', 'nothing:1').stderr, /no image nothing:1 in the store/);
    const noUmoci = spawnSync(process.execPath, [BIN, 'image', 'import', image.layoutDir, '--home', home, '--umoci', join(dir, 'no-umoci')], { encoding: 'utf8' });
    assert.equal(noUmoci.status, 1);
    assert.match(noUmoci.stderr, /umoci is needed to unpack images .*apt-get install umoci/);
  });

  it('has help', () => {
    const help = edgeplane('import', '--help');
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--name <name:tag>/);
    assert.match(help.stdout, /skopeo copy/);
  });
});
