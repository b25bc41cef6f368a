import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Container } from '../../../../api/pod-spec-types.js';
import { toolPath } from '../../../../testing/tools.js';
import { mountsUnder, readMountTable } from '../../../host/index.js';
import { containerBinds } from './container-binds.js';
import { MountCommand } from './mount-command.js';
import { SubPathBinds } from './sub-path-binds.js';
import { VolumeError } from './volume-error.js';
import { volumeDir } from './volume-kind.js';
import type { VolumePod } from './volume-types.js';

/** Needs root: subPaths are bind-mounted (util-linux mount and umount from the tools table). */
const mounts = new MountCommand({ mount: toolPath('mount'), umount: toolPath('umount') });
const subPaths = new SubPathBinds(mounts);
const root = realpathSync(mkdtempSync(join(tmpdir(), 'container-binds-')));
after(async () => {
  for (const entry of mountsUnder(await readMountTable(), root).reverse()) await mounts.unmount(entry.mountPoint, { lazy: true }).catch(() => undefined);
  rmSync(root, { recursive: true, force: true });
});

const pod: VolumePod = {
  metadata: { name: 'web-0', namespace: 'shop', uid: 'u1' },
  spec: {
    volumes: [
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'settings' } },
      { name: 'creds', secret: { secretName: 'db' } },
      { name: 'info', downwardAPI: { items: [] } },
      { name: 'all', projected: { sources: [] } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'frozen', persistentVolumeClaim: { claimName: 'frozen', readOnly: true } },
    ],
  },
};
const layout = { podDir: join(root, 'pods', 'u1'), pvRoot: join(root, 'pv'), claimFolder: (claim: string) => (claim === 'evil' ? '..' : `pvc-${claim}`) };
const dirs = new Map((pod.spec?.volumes ?? []).map((volume) => [volume.name ?? '', volumeDir(layout, volume)]));
for (const dir of dirs.values()) mkdirSync(dir, { recursive: true, mode: 0o777 });
const dir = (name: string): string => dirs.get(name) ?? '';
const container = (volumeMounts: Container['volumeMounts'], name = 'app'): Container => ({ name, volumeMounts });
const binds = (c: Container): ReturnType<typeof containerBinds> => containerBinds(pod, c, dirs, (mount) => subPaths.bind(layout.podDir, mount));
const target = (volume: string, index: number, containerName = 'app'): string => join(layout.podDir, 'volume-subpaths', volume, containerName, String(index));
const mountsAt = async (path: string): Promise<number> => (await readMountTable()).filter((entry) => entry.mountPoint === path).length;

describe('volume folders', () => {
  it('lays pod volumes out as kubelet does and claims under the site\'s PV root by their folder', () => {
    assert.equal(dir('creds'), join(root, 'pods/u1/volumes/kubernetes.io~secret/creds'));
    assert.equal(dir('scratch'), join(root, 'pods/u1/volumes/kubernetes.io~empty-dir/scratch'));
    assert.equal(dir('info'), join(root, 'pods/u1/volumes/kubernetes.io~downward-api/info'));
    assert.equal(dir('data'), join(root, 'pv/pvc-data'));
    assert.throws(() => volumeDir(layout, { name: 'x', persistentVolumeClaim: { claimName: '../etc' } }), VolumeError);
    assert.throws(() => volumeDir(layout, { name: 'x', persistentVolumeClaim: { claimName: 'evil' } }), VolumeError);
  });
});

describe('containerBinds', () => {
  it('binds each mount at its mountPath; configMap, secret, downwardAPI and projected always read-only, emptyDir and claims as asked', async () => {
    const bound = await binds(
      container([
        { name: 'scratch', mountPath: '/tmp/scratch' },
        { name: 'cfg', mountPath: '/etc/app', readOnly: false },
        { name: 'creds', mountPath: '/run/creds' },
        { name: 'info', mountPath: '/etc/info' },
        { name: 'all', mountPath: '/etc/all' },
        { name: 'data', mountPath: '/data' },
        { name: 'frozen', mountPath: '/frozen' },
        { name: 'scratch', mountPath: '/ro-scratch/', readOnly: true },
      ]),
    );
    const byDestination = Object.fromEntries(bound.map((bind) => [bind.destination, [bind.source, bind.readOnly]]));
    assert.deepEqual(byDestination, {
      '/tmp/scratch': [dir('scratch'), false],
      '/etc/app': [dir('cfg'), true],
      '/run/creds': [dir('creds'), true],
      '/etc/info': [dir('info'), true],
      '/etc/all': [dir('all'), true],
      '/data': [dir('data'), false],
      '/frozen': [dir('frozen'), true],
      '/ro-scratch': [dir('scratch'), true],
    });
  });

  it('orders binds by depth so a mount inside another lands on top of it, keeping the pod\'s order at equal depth', async () => {
    const bound = await binds(container([{ name: 'cfg', mountPath: '/data/conf' }, { name: 'data', mountPath: '/data' }, { name: 'creds', mountPath: '/run' }]));
    assert.deepEqual(bound.map((bind) => bind.destination), ['/data', '/run', '/data/conf']);
  });

  it('creates an absent subPath as folders with the volume\'s mode and binds it at its target in the pod\'s folder', async () => {
    const scratch = dir('scratch');
    chmodSync(scratch, 0o2775);
    const [bind] = await binds(container([{ name: 'scratch', mountPath: '/work', subPath: 'a/b' }]));
    assert.equal(bind?.source, target('scratch', 0), 'runc binds the target, not a path in the volume');
    assert.equal(statSync(bind.source).ino, statSync(join(scratch, 'a/b')).ino, 'the target is the subPath\'s folder');
    assert.equal(await mountsAt(bind.source), 1);
    assert.equal(statSync(join(scratch, 'a')).mode & 0o7777, 0o2775, 'the volume\'s mode, past the umask');
    assert.equal(statSync(join(scratch, 'a/b')).mode & 0o7777, 0o2775);
  });

  it('follows symlinks that stay inside the volume (a configMap key is one) to their target', async () => {
    const cfg = dir('cfg');
    mkdirSync(join(cfg, '..2024_01_01_00_00_00.1'));
    writeFileSync(join(cfg, '..2024_01_01_00_00_00.1', 'app.conf'), 'x');
    symlinkSync('..2024_01_01_00_00_00.1', join(cfg, '..data'));
    symlinkSync('..data/app.conf', join(cfg, 'app.conf'));
    const [bind] = await binds(container([{ name: 'cfg', mountPath: '/etc/app.conf', subPath: 'app.conf' }]));
    assert.deepEqual(bind, { source: target('cfg', 0), destination: '/etc/app.conf', readOnly: true });
    assert.equal(statSync(bind.source).ino, statSync(join(cfg, '..2024_01_01_00_00_00.1', 'app.conf')).ino, 'a file, bound on a file target');
    assert.equal(readFileSync(bind.source, 'utf8'), 'x');
  });

  it('refuses a subPath with .. or absolute, and one escaping through a symlink, creating nothing outside', async () => {
    const scratch = dir('scratch');
    const outside = join(root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(scratch, 'escape'));
    symlinkSync('/etc/hostname', join(scratch, 'host-file'));
    const bind = (subPath: string): Promise<unknown> => binds(container([{ name: 'scratch', mountPath: '/x', subPath }], 'refused'));
    await assert.rejects(bind('../../outside'), { name: 'VolumeError', message: "unable to provision SubPath `../../outside`: must not contain '..'" });
    await assert.rejects(bind('a/../../x'), /must not contain '\.\.'/);
    await assert.rejects(bind('/etc'), { message: 'error SubPath `/etc` must not be an absolute path' });
    await assert.rejects(bind('escape'), (error: unknown) => error instanceof VolumeError && error.message === 'failed to prepare subPath for volumeMount "scratch" of container "refused"' && /not within volume path/.test(error.detail ?? ''));
    await assert.rejects(bind('host-file'), { message: 'failed to prepare subPath for volumeMount "scratch" of container "refused"' });
    await assert.rejects(bind('escape/new/dir'), { message: 'failed to create subPath directory for volumeMount "scratch" of container "refused"' });
    assert.throws(() => statSync(join(outside, 'new')), /ENOENT/, 'nothing was created through the symlink');
    assert.ok(!existsSync(join(layout.podDir, 'volume-subpaths', 'scratch', 'refused', '0')) || (await mountsAt(target('scratch', 0, 'refused'))) === 0, 'nothing was bound');
  });

  it('binds the folder it opened: swapping it for a symlink to / afterwards changes nothing runc binds', async () => {
    const scratch = dir('scratch');
    mkdirSync(join(scratch, 'd'));
    writeFileSync(join(scratch, 'd', 'mine'), '');
    const [bind] = await binds(container([{ name: 'scratch', mountPath: '/mnt', subPath: 'd' }], 'victim'));
    renameSync(join(scratch, 'd'), join(scratch, 'd-moved'));
    symlinkSync('/', join(scratch, 'd'));
    assert.deepEqual(readdirSync(bind?.source ?? ''), ['mine'], 'the source runc binds still shows the folder that was opened');
    await assert.rejects(binds(container([{ name: 'scratch', mountPath: '/mnt', subPath: 'd' }], 'victim')), (error: unknown) =>
      error instanceof VolumeError && error.message === 'failed to prepare subPath for volumeMount "scratch" of container "victim"' && /not within volume path/.test(error.detail ?? ''));
  });

  it('binds again at each start, replacing the earlier start\'s bind; the pod\'s tear-down unmounts and removes every target', async () => {
    const scratch = dir('scratch');
    mkdirSync(join(scratch, 'again'));
    writeFileSync(join(scratch, 'again', 'first'), '');
    const mount = container([{ name: 'scratch', mountPath: '/again', subPath: 'again' }], 'restarted');
    const [first] = await binds(mount);
    renameSync(join(scratch, 'again'), join(scratch, 'again-old'));
    mkdirSync(join(scratch, 'again'));
    writeFileSync(join(scratch, 'again', 'second'), '');
    const [second] = await binds(mount);
    assert.equal(second?.source, first?.source);
    assert.deepEqual(readdirSync(second?.source ?? ''), ['second']);
    assert.equal(await mountsAt(second?.source ?? ''), 1, 'the earlier bind was unmounted, not stacked');
    await subPaths.unbindPod(layout.podDir);
    assert.deepEqual(mountsUnder(await readMountTable(), join(layout.podDir, 'volume-subpaths')), []);
    assert.ok(!existsSync(join(layout.podDir, 'volume-subpaths')));
    assert.deepEqual(readdirSync(join(scratch, 'again')), ['second'], 'the volume keeps its files');
    await subPaths.unbindPod(layout.podDir);
  });

  it('refuses mounts of unknown volumes, subPathExpr and mount propagation', async () => {
    await assert.rejects(binds(container([{ name: 'nope', mountPath: '/x' }])), { message: 'cannot find volume "nope" to mount into container "app"' });
    await assert.rejects(binds(container([{ name: 'scratch', mountPath: '/x', subPathExpr: '$(POD)' }])), /subPathExpr is not supported/);
    await assert.rejects(binds(container([{ name: 'scratch', mountPath: '/x', mountPropagation: 'Bidirectional' }])), /mountPropagation Bidirectional is not supported/);
    await assert.rejects(binds(container([{ name: 'scratch', mountPath: '/x', subPath: 'x' }], '../../escape')), { message: 'invalid name "../../escape" for a subPath mount' });
  });
});
