import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseMountInfo } from './mount-table.js';

test('mountinfo lines give the mount point (unescaped), the type and the overlay layers', () => {
  const text = [
    '22 1 254:0 / / rw,relatime shared:1 - ext4 /dev/vda rw',
    '45 27 0:39 / /tmp/a\\040b/root/merged rw,relatime - overlay overlay rw,lowerdir=/x/rootfs,upperdir=/c/upper,workdir=/c/work',
    '',
  ].join('\n');
  assert.deepEqual(parseMountInfo(text), [
    { mountPoint: '/', fsType: 'ext4', superOptions: 'rw' },
    { mountPoint: '/tmp/a b/root/merged', fsType: 'overlay', superOptions: 'rw,lowerdir=/x/rootfs,upperdir=/c/upper,workdir=/c/work' },
  ]);
});
