import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RUNTIME_DEFAULT_SECCOMP } from './runtime-default-seccomp.js';
import { goArch, parseSeccompTemplate, resolveSeccomp, SeccompProfileError } from './seccomp-template.js';

const DEFAULT_CAPS = ['CAP_AUDIT_WRITE', 'CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FOWNER', 'CAP_FSETID', 'CAP_KILL', 'CAP_MKNOD', 'CAP_NET_BIND_SERVICE', 'CAP_SETFCAP', 'CAP_SETGID', 'CAP_SETPCAP', 'CAP_SETUID', 'CAP_SYS_CHROOT'];
const amd64 = { arch: 'amd64', kernel: '6.18.44-fc-v1300' };

const allowed = (profile: ReturnType<typeof resolveSeccomp>): Set<string> =>
  new Set(profile.syscalls.filter((rule) => rule.action === 'SCMP_ACT_ALLOW' && rule.args === undefined).flatMap((rule) => rule.names));

describe('seccomp RuntimeDefault, resolved per container', () => {
  it('denies with EPERM what it does not list, on this architecture and its 32-bit ones', () => {
    const profile = resolveSeccomp(RUNTIME_DEFAULT_SECCOMP, amd64, DEFAULT_CAPS);
    assert.equal(profile.defaultAction, 'SCMP_ACT_ERRNO');
    assert.equal(profile.defaultErrnoRet, 1);
    assert.deepEqual(profile.architectures, ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32']);
    assert.deepEqual(resolveSeccomp(RUNTIME_DEFAULT_SECCOMP, { arch: 'arm64', kernel: '6.1' }, []).architectures, ['SCMP_ARCH_AARCH64', 'SCMP_ARCH_ARM']);
  });

  it('without CAP_SYS_ADMIN: no mount, unshare, setns or bpf; clone only without namespace flags; clone3 says ENOSYS', () => {
    const profile = resolveSeccomp(RUNTIME_DEFAULT_SECCOMP, amd64, DEFAULT_CAPS);
    const plain = allowed(profile);
    for (const name of ['read', 'openat', 'execve', 'getpid', 'chroot', 'arch_prctl', 'modify_ldt']) assert.ok(plain.has(name), name);
    for (const name of ['mount', 'umount2', 'unshare', 'setns', 'bpf', 'kexec_load', 'init_module', 'reboot', 'open_by_handle_at', 'syslog', 'clone']) assert.ok(!plain.has(name), name);
    const clone = profile.syscalls.filter((rule) => rule.names.includes('clone'));
    assert.deepEqual(clone.map((rule) => rule.args), [[{ index: 0, value: 2114060288, valueTwo: 0, op: 'SCMP_CMP_MASKED_EQ' }]]);
    assert.deepEqual(profile.syscalls.filter((rule) => rule.names.includes('clone3')).map((rule) => [rule.action, rule.errnoRet]), [['SCMP_ACT_ERRNO', 38]]);
    // s390's and other architectures' rules are not this machine's.
    assert.ok(!plain.has('s390_runtime_instr') && !plain.has('riscv_flush_icache') && !plain.has('set_tls'));
  });

  it('follows the bounding set: CAP_SYS_ADMIN allows mount and any clone; CAP_SYS_PTRACE allows kcmp; AF_ALG and AF_VSOCK sockets stay refused', () => {
    const admin = resolveSeccomp(RUNTIME_DEFAULT_SECCOMP, amd64, [...DEFAULT_CAPS, 'CAP_SYS_ADMIN', 'CAP_SYS_PTRACE']);
    const plain = allowed(admin);
    for (const name of ['mount', 'unshare', 'setns', 'clone', 'clone3', 'kcmp', 'pidfd_getfd']) assert.ok(plain.has(name), name);
    assert.equal(admin.syscalls.filter((rule) => rule.names.includes('clone3') && rule.action === 'SCMP_ACT_ERRNO').length, 0);
    const socket = admin.syscalls.filter((rule) => rule.names.includes('socket')).map((rule) => rule.args?.[0]);
    assert.deepEqual(socket.map((arg) => [arg?.op, arg?.value]), [['SCMP_CMP_LT', 38], ['SCMP_CMP_EQ', 39], ['SCMP_CMP_GT', 40]]);
  });

  it('reads a minimum kernel by major and minor', () => {
    const template = { defaultAction: 'SCMP_ACT_ERRNO', syscalls: [{ names: ['a'], action: 'SCMP_ACT_ALLOW', includes: { minKernel: '5.10' } }, { names: ['b'], action: 'SCMP_ACT_ALLOW', excludes: { minKernel: '5.10' } }] };
    assert.deepEqual(resolveSeccomp(template, { arch: 'amd64', kernel: '5.9.1' }, []).syscalls.map((rule) => rule.names[0]), ['b']);
    assert.deepEqual(resolveSeccomp(template, { arch: 'amd64', kernel: '5.10.0-rc1' }, []).syscalls.map((rule) => rule.names[0]), ['a']);
    assert.deepEqual(resolveSeccomp(template, { arch: 'amd64', kernel: '6.1' }, []).syscalls.map((rule) => rule.names[0]), ['a']);
  });

  it('names Node\'s architectures as Go does', () => {
    assert.equal(goArch('x64'), 'amd64');
    assert.equal(goArch('arm64'), 'arm64');
    assert.equal(goArch('ia32'), 'x86');
  });
});

describe('Localhost seccomp profiles', () => {
  it('accepts an OCI or Docker profile, the legacy name field included', () => {
    const template = parseSeccompTemplate('{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"name":"mkdir","action":"SCMP_ACT_ERRNO"},{"names":["mkdirat"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":1,"op":"SCMP_CMP_EQ"}]}]}');
    const resolved = resolveSeccomp(template, amd64, []);
    assert.deepEqual(resolved.syscalls.map((rule) => rule.names), [['mkdir'], ['mkdirat']]);
    assert.equal(resolved.architectures, undefined);
  });

  it('refuses what is not a profile, naming why', () => {
    const cases: Array<[string, RegExp]> = [
      ['not json', /not JSON/],
      ['[]', /JSON object/],
      ['{"defaultAction":"SCMP_ACT_NOTIFY"}', /defaultAction "SCMP_ACT_NOTIFY"/],
      ['{"defaultAction":"SCMP_ACT_ALLOW","syscalls":{}}', /syscalls must be a list/],
      ['{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":[],"action":"SCMP_ACT_ERRNO"}]}', /syscalls\[0\]\.names/],
      ['{"defaultAction":"SCMP_ACT_ALLOW","syscalls":[{"names":["x"],"action":"ALLOW"}]}', /syscalls\[0\]\.action "ALLOW"/],
      [JSON.stringify({ defaultAction: 'SCMP_ACT_ALLOW', syscalls: [{ names: ['x'], action: 'SCMP_ACT_ERRNO', args: [{ index: 0, op: 'SCMP_CMP_EQ' }] }] }), /syscalls\[0\]\.args/],
    ];
    for (const [text, message] of cases) {
      assert.throws(() => parseSeccompTemplate(text), (error: unknown) => error instanceof SeccompProfileError && message.test(error.message), text);
    }
  });
});
