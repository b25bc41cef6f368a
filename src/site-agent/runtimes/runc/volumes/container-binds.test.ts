import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { Container } from '../../../../api/pod-spec-types.js';
import { containerBinds } from './container-binds.js';
import { VolumeError } from './volume-error.js';
import { volumeDir } from './volume-kind.js';
import type { VolumePod } from './volume-types.js';

const root = realpathSync(mkdtempSync(join(tmpdir(), 'container-binds-')));
after(() => rmSync(root, { recursive: true, force: true }));

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
const container = (volumeMounts: Container['volumeMounts']): Container => ({ name: 'app', volumeMounts });

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
    const binds = await containerBinds(
      pod,
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
      dirs,
    );
    const byDestination = Object.fromEntries(binds.map((bind) => [bind.destination, [bind.source, bind.readOnly]]));
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
    const binds = await containerBinds(pod, container([{ name: 'cfg', mountPath: '/data/conf' }, { name: 'data', mountPath: '/data' }, { name: 'creds', mountPath: '/run' }]), dirs);
    assert.deepEqual(binds.map((bind) => bind.destination), ['/data', '/run', '/data/conf']);
  });

  it('creates an absent subPath as folders with the volume\'s mode and binds it', async () => {
    const scratch = dir('scratch');
    chmodSync(scratch, 0o2775);
    const [bind] = await containerBinds(pod, container([{ name: 'scratch', mountPath: '/work', subPath: 'a/b' }]), dirs);
    assert.equal(bind?.source, join(scratch, 'a/b'));
    assert.equal(statSync(join(scratch, 'a')).mode & 0o7777, 0o2775, 'the volume\'s mode, past the umask');
    assert.equal(statSync(join(scratch, 'a/b')).mode & 0o7777, 0o2775);
  });

  it('follows symlinks that stay inside the volume (a configMap key is one) to their target', async () => {
    const cfg = dir('cfg');
    mkdirSync(join(cfg, '..2024_01_01_00_00_00.1'));
    writeFileSync(join(cfg, '..2024_01_01_00_00_00.1', 'app.conf'), 'x');
    symlinkSync('..2024_01_01_00_00_00.1', join(cfg, '..data'));
    symlinkSync('..data/app.conf', join(cfg, 'app.conf'));
    const [bind] = await containerBinds(pod, container([{ name: 'cfg', mountPath: '/etc/app.conf', subPath: 'app.conf' }]), dirs);
    assert.deepEqual(bind, { source: join(cfg, '..2024_01_01_00_00_00.1', 'app.conf'), destination: '/etc/app.conf', readOnly: true });
  });

  it('refuses a subPath with .. or absolute, and one escaping through a symlink, creating nothing outside', async () => {
    const scratch = dir('scratch');
    const outside = join(root, 'outside');
    mkdirSync(outside);
    symlinkSync(outside, join(scratch, 'escape'));
    symlinkSync('/etc/hostname', join(scratch, 'host-file'));
    const bind = (subPath: string): Promise<unknown> => containerBinds(pod, container([{ name: 'scratch', mountPath: '/x', subPath }]), dirs);
    await assert.rejects(bind('../../outside'), { name: 'VolumeError', message: "unable to provision SubPath `../../outside`: must not contain '..'" });
    await assert.rejects(bind('a/../../x'), /must not contain '\.\.'/);
    await assert.rejects(bind('/etc'), { message: 'error SubPath `/etc` must not be an absolute path' });
    await assert.rejects(bind('escape'), (error: unknown) => error instanceof VolumeError && error.message === 'failed to prepare subPath for volumeMount "scratch" of container "app"' && /not within volume path/.test(error.detail ?? ''));
    await assert.rejects(bind('host-file'), { message: 'failed to prepare subPath for volumeMount "scratch" of container "app"' });
    await assert.rejects(bind('escape/new/dir'), { message: 'failed to create subPath directory for volumeMount "scratch" of container "app"' });
    assert.throws(() => statSync(join(outside, 'new')), /ENOENT/, 'nothing was created through the symlink');
  });

  it('refuses mounts of unknown volumes, subPathExpr and mount propagation', async () => {
    await assert.rejects(containerBinds(pod, container([{ name: 'nope', mountPath: '/x' }]), dirs), { message: 'cannot find volume "nope" to mount into container "app"' });
    await assert.rejects(containerBinds(pod, container([{ name: 'scratch', mountPath: '/x', subPathExpr: '$(POD)' }]), dirs), /subPathExpr is not supported/);
    await assert.rejects(containerBinds(pod, container([{ name: 'scratch', mountPath: '/x', mountPropagation: 'Bidirectional' }]), dirs), /mountPropagation Bidirectional is not supported/);
  });
});
