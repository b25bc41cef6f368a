import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, realpathSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Volume } from '../../../../api/pod-spec-types.js';
import { toolPath } from '../../../../testing/tools.js';
import { MountCommand } from './mount-command.js';
import { mountsUnder, parseMountInfo, readMountTable } from '../../../host/index.js';
import { volumeDir } from './volume-kind.js';
import { VolumeSetup } from './volume-setup.js';
import type { VolumeFile } from './volume-types.js';

/** Needs root (mount(2)); util-linux mount and umount come from the tools table. */
const mounts = new MountCommand({ mount: toolPath('mount'), umount: toolPath('umount') });
const setup = new VolumeSetup(mounts);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'volume-setup-')));
const TMPFS_MAGIC = 0x01021994;

after(async () => {
  for (const entry of mountsUnder(await readMountTable(), root).reverse()) await mounts.unmount(entry.mountPoint).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

const layout = { podDir: join(root, 'pods', 'p1'), pvRoot: join(root, 'pv'), claimFolder: (claim: string) => `pvc-${claim}` };
const file = (path: string, text: string | Buffer, mode = 0o644): VolumeFile => ({ path, data: Buffer.isBuffer(text) ? text : Buffer.from(text), mode });
/** The mounts at `dir`: file system type, whether nosuid and nodev, and the size option (kernels differ in the other options they list). */
const mountsAt = async (dir: string): Promise<string[]> =>
  (await readMountTable())
    .filter((entry) => entry.mountPoint === dir)
    .map((entry) => {
      const options = entry.options.split(',');
      const size = entry.superOptions.split(',').find((option) => option.startsWith('size='));
      return [entry.fsType, ...['nosuid', 'nodev'].filter((option) => options.includes(option)), ...(size === undefined ? [] : [size])].join(' ');
    });

describe('mountinfo', () => {
  it('parses proc(5) lines with optional fields and octal escapes', () => {
    const [entry] = parseMountInfo('36 35 98:0 /mnt1 /mnt\\040two rw,noatime master:1 shared:2 - tmpfs tmp\\134fs rw,size=1024k\n');
    assert.deepEqual(entry, { id: 36, parentId: 35, mountPoint: '/mnt two', options: 'rw,noatime', fsType: 'tmpfs', source: 'tmp\\fs', superOptions: 'rw,size=1024k' });
  });
});

describe('VolumeSetup (root)', () => {
  it('a secret volume is a tmpfs: its files are written only after the mount, read through the symlinks, with their modes', async () => {
    const volume: Volume = { name: 'creds', secret: { secretName: 'db' } };
    const dir = volumeDir(layout, volume);
    assert.equal(await setup.setUpVolume(dir, volume, [file('password', 's3cret', 0o400), file('tls/key', 'k', 0o440)]), true);
    assert.deepEqual(await mountsAt(dir), ['tmpfs nosuid nodev']);
    assert.equal(statfsSync(join(dir, 'password')).type, TMPFS_MAGIC, 'the file is on the tmpfs, not the disk');
    assert.equal(readFileSync(join(dir, 'password'), 'utf8'), 's3cret');
    assert.equal(statSync(join(dir, 'password')).mode & 0o7777, 0o400);
    assert.equal(statSync(join(dir, 'tls/key')).mode & 0o7777, 0o440);
    assert.equal(readlinkSync(join(dir, 'password')), '..data/password');

    assert.equal(await setup.setUpVolume(dir, volume, [file('tls/key', 'k', 0o440), file('password', 's3cret', 0o400)]), false, 'the same contents again change nothing');
    assert.equal((await mountsAt(dir)).length, 1, 'set-up again mounts nothing more');

    await setup.tearDownVolume(dir);
    assert.equal(existsSync(dir), false);
    assert.deepEqual(mountsUnder(await readMountTable(), dir), []);
    await setup.tearDownVolume(dir);
  });

  it('an update swaps atomically: a reader of the user-visible file only ever sees one whole version', async () => {
    const volume: Volume = { name: 'all', projected: { sources: [] } };
    const dir = volumeDir(layout, volume);
    const size = 1 << 20;
    const version = (n: number): VolumeFile[] => [file('big', Buffer.alloc(size, 97 + n)), file(`only-${n}`, String(n))];
    await setup.setUpVolume(dir, volume, version(0));
    let writing = true;
    const seen = new Set<number>();
    const reader = (async () => {
      while (writing) {
        const data = await readFile(join(dir, 'big'));
        assert.equal(data.length, size, 'never a partial file');
        assert.ok(data.every((byte) => byte === data[0]), 'never a mix of versions');
        seen.add((data[0] ?? 0) - 97);
      }
    })();
    for (let n = 1; n <= 15; n++) assert.equal(await setup.setUpVolume(dir, volume, version(n)), true);
    writing = false;
    await reader;
    assert.ok(seen.size >= 2, `the reader saw ${seen.size} versions`);
    assert.equal(readFileSync(join(dir, 'big'))[0], 97 + 15);
    const data = readlinkSync(join(dir, '..data'));
    assert.deepEqual(readdirSync(dir).sort(), [data, '..data', 'big', 'only-15'].sort(), 'old names and folders are gone');
    await setup.tearDownVolume(dir);
  });

  it('emptyDir with medium Memory is a tmpfs of sizeLimit bytes writable by all; without it, a plain 0777 folder; configMap lives on disk', async () => {
    const memory: Volume = { name: 'cache', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } };
    const cache = volumeDir(layout, memory);
    await setup.setUpVolume(cache, memory, []);
    assert.deepEqual(await mountsAt(cache), ['tmpfs nosuid nodev size=1024k']);
    assert.equal(statSync(cache).mode & 0o7777, 0o1777);
    assert.throws(() => writeFileSync(join(cache, 'big'), Buffer.alloc(2 << 20)), /ENOSPC/);

    const disk: Volume = { name: 'scratch', emptyDir: {} };
    const scratch = volumeDir(layout, disk);
    await setup.setUpVolume(scratch, disk, []);
    assert.equal(statSync(scratch).mode & 0o7777, 0o777);
    assert.deepEqual(await mountsAt(scratch), []);

    const config: Volume = { name: 'cfg', configMap: { name: 'settings' } };
    const cfg = volumeDir(layout, config);
    await setup.setUpVolume(cfg, config, [file('app.conf', 'port=80')]);
    assert.deepEqual(await mountsAt(cfg), []);
    assert.equal(readFileSync(join(cfg, 'app.conf'), 'utf8'), 'port=80');
    await assert.rejects(setup.setUpVolume(cfg, { name: 'x', emptyDir: { medium: 'Memory', sizeLimit: 'lots' } }, []), /invalid emptyDir sizeLimit "lots"/);
  });

  it('a claim\'s folder is made 0777 and kept; tearing down the pod\'s volumes unmounts and removes them all, leaving no mount', async () => {
    const claim: Volume = { name: 'data', persistentVolumeClaim: { claimName: 'data' } };
    const data = volumeDir(layout, claim);
    await setup.setUpVolume(data, claim, []);
    writeFileSync(join(data, 'kept'), 'x');
    const secret: Volume = { name: 'creds', secret: { secretName: 'db' } };
    await setup.setUpVolume(volumeDir(layout, secret), secret, [file('password', 'p')]);
    const info: Volume = { name: 'info', downwardAPI: { items: [] } };
    await setup.setUpVolume(volumeDir(layout, info), info, [file('name', 'web-0')]);
    assert.ok(mountsUnder(await readMountTable(), layout.podDir).length >= 3);

    await setup.tearDownPodVolumes(layout.podDir);
    assert.deepEqual(mountsUnder(await readMountTable(), layout.podDir), []);
    assert.equal(existsSync(join(layout.podDir, 'volumes')), false);
    assert.equal(readFileSync(join(data, 'kept'), 'utf8'), 'x', 'the claim\'s data outlives the pod');
    assert.equal(statSync(data).mode & 0o7777, 0o777);
    await setup.tearDownPodVolumes(layout.podDir);
  });
});
