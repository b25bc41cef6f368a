import assert from 'node:assert/strict';
import { test } from 'node:test';
import { containerCapabilities } from './capabilities.js';

test('a container gets containerd\'s default set without NET_RAW (as CRI-O), and no NET_ADMIN or SYS_ADMIN', () => {
  const caps = containerCapabilities(undefined);
  assert.deepEqual(caps.bounding, [
    'CAP_AUDIT_WRITE', 'CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FOWNER', 'CAP_FSETID', 'CAP_KILL', 'CAP_MKNOD',
    'CAP_NET_BIND_SERVICE', 'CAP_SETFCAP', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_SETUID', 'CAP_SYS_CHROOT',
  ]);
  assert.ok(!caps.bounding.includes('CAP_NET_RAW'));
  assert.ok(caps.bounding.includes('CAP_NET_BIND_SERVICE'));
  assert.ok(!caps.bounding.includes('CAP_NET_ADMIN'));
  assert.ok(!caps.bounding.includes('CAP_SYS_ADMIN'));
  assert.deepEqual(caps.ambient, []);
});

test('add and drop use Kubernetes names; drop wins over add unless drop is ALL', () => {
  const caps = containerCapabilities({ capabilities: { add: ['NET_ADMIN', 'sys_time', 'net_raw'], drop: ['CHOWN', 'SYS_TIME'] } });
  assert.ok(caps.bounding.includes('CAP_NET_ADMIN'));
  assert.ok(caps.bounding.includes('CAP_NET_RAW'), 'a pod that needs NET_RAW adds it');
  assert.ok(!caps.bounding.includes('CAP_CHOWN'));
  assert.ok(!caps.bounding.includes('CAP_SYS_TIME'));
});

test('drop ALL keeps only what add names', () => {
  assert.deepEqual(containerCapabilities({ capabilities: { drop: ['ALL'] } }).bounding, []);
  assert.deepEqual(containerCapabilities({ capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] } }).bounding, ['CAP_NET_BIND_SERVICE']);
});

test('add ALL grants every capability', () => {
  const caps = containerCapabilities({ capabilities: { add: ['ALL'] } });
  assert.ok(caps.bounding.includes('CAP_SYS_ADMIN'));
  assert.ok(caps.bounding.length >= 41);
});
