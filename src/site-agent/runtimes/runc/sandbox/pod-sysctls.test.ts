import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { podSysctls, SysctlForbiddenError } from './pod-sysctls.js';

const pod = (...sysctls: Array<[string, string]>) => ({ securityContext: { sysctls: sysctls.map(([name, value]) => ({ name, value })) } });

describe('a pod sandbox\'s sysctls', () => {
  it('always open ICMP sockets to every group; a pod may set the safe ones, with / or .', () => {
    assert.deepEqual(podSysctls({}, false), { 'net.ipv4.ping_group_range': '0 2147483647' });
    assert.deepEqual(podSysctls(pod(['net.ipv4.ip_local_port_range', '1024 2048'], ['kernel/shm_rmid_forced', '1'], ['net.ipv4.ping_group_range', '0 0']), false), {
      'net.ipv4.ping_group_range': '0 0',
      'net.ipv4.ip_local_port_range': '1024 2048',
      'kernel.shm_rmid_forced': '1',
    });
  });

  it('sets other namespaced ones only where the site runs what baseline forbids', () => {
    assert.throws(() => podSysctls(pod(['net.core.somaxconn', '1024']), false), { name: 'SysctlForbiddenError', message: 'Pod forbidden sysctl: "net.core.somaxconn" not allowed' });
    assert.equal(podSysctls(pod(['net.core.somaxconn', '1024'], ['kernel.msgmax', '65536']), true)['net.core.somaxconn'], '1024');
  });

  it('never sets the host\'s (not namespaced), nor a malformed name or value', () => {
    for (const allow of [false, true]) {
      for (const name of ['kernel.core_pattern', 'vm.overcommit_memory', 'fs.file-max', 'kernel.modprobe', '../../x', 'net..x']) {
        assert.throws(() => podSysctls(pod([name, '|/x']), allow), SysctlForbiddenError, name);
      }
      assert.throws(() => podSysctls(pod(['net.ipv4.tcp_syncookies', '1\nkernel.core_pattern=|/x']), allow), /line break/);
    }
  });
});
