import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hostImagePlan, prepareRoot, type HostEntry } from './host-image.js';

const mergedUsr: Record<string, HostEntry> = {
  '/usr': { kind: 'dir' },
  '/bin': { kind: 'symlink', target: 'usr/bin' },
  '/lib': { kind: 'symlink', target: 'usr/lib' },
  '/lib64': { kind: 'symlink', target: 'usr/lib64' },
  '/sbin': { kind: 'symlink', target: 'usr/sbin' },
  '/etc/passwd': { kind: 'file' },
  '/etc/ssl/certs': { kind: 'dir' },
  '/etc/shadow': { kind: 'file' },
  '/etc/ssh': { kind: 'dir' },
  '/etc/hostname': { kind: 'file' },
};

test('a merged-/usr host gives /usr read-only and the same links for /bin, /lib, /lib64 and /sbin', () => {
  const plan = hostImagePlan((path) => mergedUsr[path]);
  assert.deepEqual(plan.symlinks, [
    { path: '/bin', target: 'usr/bin' },
    { path: '/sbin', target: 'usr/sbin' },
    { path: '/lib', target: 'usr/lib' },
    { path: '/lib64', target: 'usr/lib64' },
  ]);
  assert.deepEqual(plan.binds[0], { source: '/usr', destination: '/usr', readOnly: true });
  assert.ok(plan.binds.every((b) => b.readOnly));
});

test('only the /etc essentials are shown: never shadow files, keys or the host\'s own name', () => {
  const destinations = hostImagePlan((path) => mergedUsr[path]).binds.map((b) => b.destination);
  assert.ok(destinations.includes('/etc/passwd'));
  assert.ok(destinations.includes('/etc/ssl/certs'));
  for (const secret of ['/etc/shadow', '/etc/ssh', '/etc/hostname']) assert.ok(!destinations.includes(secret), secret);
});

test('a split-/usr host binds each program folder it has', () => {
  const plan = hostImagePlan((path) => (['/usr', '/bin', '/lib'].includes(path) ? { kind: 'dir' } : undefined));
  assert.deepEqual(plan.symlinks, []);
  assert.deepEqual(plan.binds.map((b) => b.destination), ['/usr', '/bin', '/lib']);
});

test('a host-image root gets its mount points, none of them through its links: a link to a host folder leaves that folder untouched', () => {
  const work = realpathSync(mkdtempSync(join(tmpdir(), 'host-image-')));
  try {
    const host = join(work, 'host-lib');
    mkdirSync(host);
    const rootfs = join(work, 'rootfs');
    prepareRoot(rootfs, { symlinks: [{ path: '/lib64', target: host }], binds: [{ source: '/etc/passwd', destination: '/etc/passwd', readOnly: true }] }, [
      { source: work, destination: '/lib64/volume', readOnly: false },
      { source: '/etc/hostname', destination: '/lib64/file', readOnly: true },
      { source: work, destination: '/srv/data', readOnly: false },
    ]);
    assert.deepEqual(readdirSync(host), [], 'nothing made through the absolute link');
    assert.ok(statSync(join(rootfs, 'etc/passwd')).isFile());
    assert.ok(statSync(join(rootfs, 'srv/data')).isDirectory());
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
