import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mountsUnder, parseMountInfo } from './mount-table.js';

test('mountinfo lines give ids, the mount point (unescaped), options, type, source and the overlay layers', () => {
  const text = [
    '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '45 27 0:39 / /tmp/a\\040b/root/merged rw,relatime - overlay overlay rw,lowerdir=/x/rootfs,upperdir=/c/upper,workdir=/c/work',
    '',
  ].join('\n');
  assert.deepEqual(parseMountInfo(text), [
    { id: 22, parentId: 1, mountPoint: '/', options: 'rw,relatime', fsType: 'ext4', source: '/dev/vda', superOptions: 'rw' },
    { id: 45, parentId: 27, mountPoint: '/tmp/a b/root/merged', options: 'rw,relatime', fsType: 'overlay', source: 'overlay', superOptions: 'rw,lowerdir=/x/rootfs,upperdir=/c/upper,workdir=/c/work' },
  ]);
});

test('mountsUnder keeps the folder itself and what is below it, not its namesakes', () => {
  const entries = parseMountInfo(['1 0 0:1 / /a rw - tmpfs tmpfs rw', '2 1 0:2 / /a/b rw - tmpfs tmpfs rw', '3 0 0:3 / /ab rw - tmpfs tmpfs rw'].join('\n'));
  assert.deepEqual(mountsUnder(entries, '/a').map((e) => e.mountPoint), ['/a', '/a/b']);
});
