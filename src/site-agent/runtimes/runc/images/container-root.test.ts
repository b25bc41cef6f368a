import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ContainerRootError, mountContainerRoot, unmountAllUnder, unmountContainerRoot } from './container-root.js';
import { readMountTable } from '../../../host/index.js';

describe('container roots (overlayfs, as root)', () => {
  let work: string;
  let image: string;
  const snapshot = (): string => execFileSync('sh', ['-c', `cd ${image} && find . -printf '%p %m %s %T@\\n' | sort && cat etc/file`], { encoding: 'utf8' });
  let original: string;
  before(() => {
    work = mkdtempSync(join(tmpdir(), 'container-root-'));
    image = join(work, 'image');
    mkdirSync(join(image, 'etc'), { recursive: true });
    writeFileSync(join(image, 'etc/file'), 'from the image\n');
    writeFileSync(join(image, 'etc/doomed'), 'deleted in the container\n');
    original = snapshot();
  });
  after(async () => {
    await unmountAllUnder(work);
    rmSync(work, { recursive: true, force: true });
  });

  it('a writable root takes writes in the container\'s own layer and leaves the image untouched', async () => {
    const container = join(work, 'c1');
    const root = await mountContainerRoot(image, container, false, [{ source: '/etc/hostname', destination: '/etc/hostname', readOnly: true }]);
    assert.equal(root, join(container, 'root', 'merged'));
    assert.ok((await readMountTable()).some((m) => m.mountPoint === root && m.fsType === 'overlay'));
    writeFileSync(join(root, 'etc/file'), 'changed\n');
    writeFileSync(join(root, 'new'), 'new\n');
    rmSync(join(root, 'etc/doomed'));
    assert.equal(readFileSync(join(root, 'etc/file'), 'utf8'), 'changed\n');
    assert.ok(existsSync(join(root, 'etc/hostname')) && existsSync(join(root, 'proc')), 'mount points are made');
    assert.equal(snapshot(), original, 'the image root is unchanged');
    assert.equal(await mountContainerRoot(image, container, false), root, 'mounting again (an agent restart) keeps the mount');
    assert.equal((await readMountTable()).filter((m) => m.mountPoint === root).length, 1);
    await unmountContainerRoot(root);
    assert.ok(!(await readMountTable()).some((m) => m.mountPoint.startsWith(container)), 'no mount is left');
    assert.deepEqual(readdirSync(container), [], 'the writable layer is gone');
    await unmountContainerRoot(root);
  });

  it('a read-only root refuses every write but has its mount points', async () => {
    const container = join(work, 'c2');
    const data = join(work, 'data');
    mkdirSync(data);
    const root = await mountContainerRoot(image, container, true, [
      { source: data, destination: '/svc/secrets/identity', readOnly: true },
      { source: '/etc/hosts', destination: '/etc/hosts', readOnly: true },
    ]);
    assert.ok(statSync(join(root, 'svc/secrets/identity')).isDirectory());
    assert.ok(statSync(join(root, 'etc/hosts')).isFile());
    assert.equal(readFileSync(join(root, 'etc/file'), 'utf8'), 'from the image\n');
    assert.throws(() => writeFileSync(join(root, 'etc/file'), 'x'), /EROFS/);
    assert.throws(() => writeFileSync(join(root, 'new'), 'x'), /EROFS/);
    assert.equal(snapshot(), original);
    await unmountContainerRoot(root);
    assert.ok(!(await readMountTable()).some((m) => m.mountPoint.startsWith(container)));
    assert.deepEqual(readdirSync(container), []);
  });

  it("shows the image's owner and mode on / and on the folders holding mount points (non-root users can reach them)", async () => {
    const owned = join(work, 'owned-image');
    mkdirSync(join(owned, 'home/app'), { recursive: true });
    chmodSync(owned, 0o751);
    chownSync(join(owned, 'home/app'), 1000, 1000);
    chmodSync(join(owned, 'home/app'), 0o750);
    const data = join(work, 'owned-data');
    mkdirSync(data);
    const attributes = (path: string): string => {
      const s = statSync(path);
      return `${s.uid}:${s.gid} ${(s.mode & 0o7777).toString(8)}`;
    };
    const writable = await mountContainerRoot(owned, join(work, 'c3'), false, [{ source: data, destination: '/home/app/data', readOnly: false }]);
    assert.equal(attributes(writable), '0:0 751', 'the root is the image\'s, not the 0700 of the container\'s layer');
    assert.equal(attributes(join(writable, 'home/app')), '1000:1000 750');
    const readOnly = await mountContainerRoot(owned, join(work, 'c4'), true, [{ source: data, destination: '/home/app/data', readOnly: false }]);
    assert.equal(attributes(readOnly), '0:0 751');
    assert.equal(attributes(join(readOnly, 'home/app')), '1000:1000 750', 'a mount point\'s parent keeps the image\'s owner');
    assert.equal(attributes(join(readOnly, 'home')), attributes(join(owned, 'home')));
    assert.equal(attributes(join(work, 'c3', 'root')), '0:0 700', "the container's layers stay out of host users' reach");
    await unmountContainerRoot(writable);
    await unmountContainerRoot(readOnly);
  });

  it('makes no mount point through a symlink of the image: a hostile image\'s links to the host stay untouched', async () => {
    const hostile = join(work, 'hostile-image');
    const host = join(work, 'host-folder');
    mkdirSync(join(hostile, 'etc'), { recursive: true });
    mkdirSync(join(host, 'inner'), { recursive: true });
    chmodSync(join(host, 'inner'), 0o711);
    symlinkSync(host, join(hostile, 'data'));
    symlinkSync(join(host, 'planted'), join(hostile, 'etc', 'app.conf'));
    const source = join(work, 'hostile-source');
    mkdirSync(source);
    const points = [
      { source, destination: '/data/volume', readOnly: false },
      { source: '/etc/hostname', destination: '/data/file', readOnly: true },
      { source: '/etc/hostname', destination: '/etc/app.conf', readOnly: true },
      { source, destination: '/data/inner/x', readOnly: false },
    ];
    const writable = await mountContainerRoot(hostile, join(work, 'c5'), false, points);
    const readOnly = await mountContainerRoot(hostile, join(work, 'c6'), true, points);
    assert.deepEqual(readdirSync(host), ['inner'], 'nothing was made in the host\'s folder');
    assert.deepEqual(readdirSync(join(host, 'inner')), []);
    assert.equal(statSync(join(readOnly, 'data/inner')).mode & 0o7777, 0o755, 'the mount-point layer took no attributes from the host through the image\'s link');
    await unmountContainerRoot(writable);
    await unmountContainerRoot(readOnly);
  });

  it('refuses to unmount a path it did not make', async () => {
    await assert.rejects(unmountContainerRoot(image), (error: unknown) => error instanceof ContainerRootError && /not a container root/.test(error.message));
  });
});
