import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContainerConfigError } from './container-env.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { baselineRefusal, containerArgs, workloadLaunch, type LaunchContext } from './workload-launch.js';

const context: LaunchContext = {
  rootfs: '/r',
  image: { entrypoint: ['/bin/sh', '-c'], cmd: ['echo hi'], env: ['PATH=/bin'], user: '65534:65534', workingDir: '/tmp' },
  env: new Map([['A', '1']]),
  binds: [],
  netnsPath: '/var/run/netns/p',
  infraPid: 42,
  cgroupsPath: '/edgeplane/s/u/c-0',
  hostname: 'pod-1',
  qosClass: 'BestEffort',
  machineMemoryBytes: 8 * 2 ** 30,
  oomScoreFloor: 0,
  allowPrivileged: false,
  seccomp: { type: 'RuntimeDefault' },
  host: { arch: 'amd64', kernel: '6.1.0' },
  annotations: {},
};

describe('workload launch', () => {
  it('resolves the process as the CRI does: command replaces entrypoint and cmd, args replace cmd', () => {
    const image = { entrypoint: ['/e'], cmd: ['c'] };
    assert.deepEqual(containerArgs({}, image), ['/e', 'c']);
    assert.deepEqual(containerArgs({ args: ['a'] }, image), ['/e', 'a']);
    assert.deepEqual(containerArgs({ command: ['/x'] }, image), ['/x']);
    assert.deepEqual(containerArgs({ command: ['/x'], args: ['y'] }, image), ['/x', 'y']);
    assert.throws(() => containerArgs({}, {}), ContainerConfigError);
  });

  it('gives a container with tty a terminal (process.terminal), and none otherwise', () => {
    assert.equal(workloadLaunch({}, { name: 'c' }, context).terminal, false);
    assert.equal(workloadLaunch({}, { name: 'c', stdin: true }, context).terminal, false);
    assert.equal(workloadLaunch({}, { name: 'c', stdin: true, tty: true }, context).terminal, true);
  });

  it("takes the user from the security context, then the image; the image's environment under the container's", () => {
    const launch = workloadLaunch({}, { name: 'c' }, context);
    assert.equal(launch.uid, 65534);
    assert.equal(launch.gid, 65534);
    assert.deepEqual(launch.env, ['PATH=/bin', 'HOSTNAME=pod-1', 'A=1']);
    assert.equal(launch.cwd, '/tmp');
    assert.equal(launch.ipcNamespace, '/proc/42/ns/ipc');
    assert.equal(launch.pidNamespace, undefined);
    const asRoot = workloadLaunch({ securityContext: { runAsUser: 0 } }, { name: 'c', securityContext: { runAsUser: 1000, runAsGroup: 2000 } }, context);
    assert.equal(asRoot.uid, 1000);
    assert.equal(asRoot.gid, 2000);
  });

  it('refuses on a regional edge what Pod Security baseline forbids, with kube\'s words; runAsNonRoot as root everywhere', () => {
    const refused: Array<[PodSpec, Container, string]> = [
      [{}, { name: 'c', securityContext: { privileged: true } }, 'privileged (container "c" must not set securityContext.privileged=true)'],
      [{}, { name: 'c', securityContext: { capabilities: { add: ['SYS_ADMIN'] } } }, 'non-default capabilities (container "c" must not include "SYS_ADMIN" in securityContext.capabilities.add)'],
      [{ hostNetwork: true }, { name: 'c' }, 'host namespaces (hostNetwork=true)'],
      [{ securityContext: { sysctls: [{ name: 'kernel.core_pattern', value: '|/x' }] } }, { name: 'c' }, 'forbidden sysctls (kernel.core_pattern)'],
    ];
    for (const [spec, container, detail] of refused) {
      const expected = `regional edge sites run only pods that meet Pod Security baseline: violates PodSecurity "baseline:latest": ${detail}`;
      assert.throws(() => workloadLaunch(spec, container, context), (error: Error) => error instanceof ContainerConfigError && error.message === expected);
    }
    assert.equal(baselineRefusal({ initContainers: [{ name: 'i', securityContext: { privileged: true } }] }, { name: 'c' }), undefined, 'judged from this container');
    assert.equal(workloadLaunch({}, { name: 'c', securityContext: { capabilities: { add: ['NET_BIND_SERVICE'] } } }, context).uid, 65534);
    const privileged = workloadLaunch({}, { name: 'c', securityContext: { privileged: true } }, { ...context, allowPrivileged: true });
    assert.ok(privileged.capabilities.bounding.includes('CAP_SYS_ADMIN'));
    assert.throws(() => workloadLaunch({}, { name: 'c', securityContext: { runAsNonRoot: true, runAsUser: 0 } }, context), /runAsNonRoot/);
  });

  it('honours readOnlyRootFilesystem, allowPrivilegeEscalation and shareProcessNamespace', () => {
    const launch = workloadLaunch({ shareProcessNamespace: true }, { name: 'c', securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false } }, context);
    assert.equal(launch.readOnlyRootfs, true);
    assert.equal(launch.noNewPrivileges, true);
    assert.equal(launch.pidNamespace, '/proc/42/ns/pid');
  });
});
