import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { identityOwner, podIdentityOwner } from './identity-owner.js';
import { sidecarPodSpec, sidecarProcess } from './sidecar-launch.js';
import { workloadLaunch, type LaunchContext } from '../containers/workload-launch.js';

const SIDECAR: Container = { name: 'edgeplane-sidecar', image: 'edgeplane/sidecar:1' };
const noImageUser = (): undefined => undefined;
const pod = (containers: Container[], extra: Partial<PodSpec> = {}): PodSpec => ({ containers: [...containers, SIDECAR], ...extra });

describe('who owns the identity files', () => {
  it("the pod's fsGroup, as a group, whatever users the containers run as", () => {
    const spec = pod([{ name: 'a', securityContext: { runAsUser: 1000 } }, { name: 'b' }], { securityContext: { fsGroup: 2000 } });
    assert.deepEqual(identityOwner(spec, noImageUser), { by: 'fsGroup', owner: { uid: 0, gid: 2000 } });
  });

  it('the one user every workload container runs as: from the container, the pod or the image', () => {
    assert.deepEqual(identityOwner(pod([{ name: 'a' }, { name: 'b' }], { securityContext: { runAsUser: 1000 } }), noImageUser), { by: 'user', owner: { uid: 1000, gid: 0 } });
    assert.deepEqual(identityOwner(pod([{ name: 'a', securityContext: { runAsUser: 1000 } }]), noImageUser), { by: 'user', owner: { uid: 1000, gid: 0 } });
    const imageUser = (c: Container): string | undefined => (c.image === 'busybox' ? '65534:65534' : undefined);
    assert.deepEqual(identityOwner(pod([{ name: 'a', image: 'busybox' }]), imageUser), { by: 'user', owner: { uid: 65534, gid: 0 } });
    // The container's runAsUser wins over the image's user.
    assert.deepEqual(identityOwner(pod([{ name: 'a', image: 'busybox', securityContext: { runAsUser: 7 } }, { name: 'b', securityContext: { runAsUser: 7 } }]), imageUser), { by: 'user', owner: { uid: 7, gid: 0 } });
  });

  it('root when every workload container runs as root, without a word', () => {
    assert.deepEqual(identityOwner(pod([{ name: 'a' }]), noImageUser), { by: 'root' });
    assert.deepEqual(identityOwner(pod([{ name: 'a', securityContext: { runAsUser: 0 } }]), noImageUser), { by: 'root' });
  });

  it('root, saying why, when the workload containers (init containers included) run as different users, or one as an unknown user', () => {
    const mixed = identityOwner(pod([{ name: 'a', securityContext: { runAsUser: 1000 } }, { name: 'b', securityContext: { runAsUser: 2000 } }]), noImageUser);
    assert.equal(mixed.by, 'root');
    assert.match((mixed as { reason: string }).reason, /stay root's \(keys 0600\): the pod's containers run as different users \(a: 1000, b: 2000\) and the pod has no fsGroup; set spec\.securityContext\.fsGroup/);
    const init = identityOwner({ ...pod([{ name: 'a', securityContext: { runAsUser: 1000 } }]), initContainers: [{ name: 'setup' }] }, noImageUser);
    assert.match((init as { reason: string }).reason, /\(setup: 0, a: 1000\)/);
    const named = identityOwner(pod([{ name: 'a', image: 'x' }]), () => 'app');
    assert.match((named as { reason: string }).reason, /\(a: unknown\)/);
  });

  it("looks each image's user up once in the store; an image it lacks (the host image) has none", async () => {
    const asked: string[] = [];
    const resolve = (image: string): Promise<{ config: { user?: string } } | undefined> => {
      asked.push(image);
      return Promise.resolve(image === 'busybox' ? { config: { user: '1000' } } : undefined);
    };
    assert.deepEqual(await podIdentityOwner(pod([{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox' }]), resolve), { by: 'user', owner: { uid: 1000, gid: 0 } });
    assert.deepEqual(asked, ['busybox'], 'once per image, never the sidecar\'s');
    assert.deepEqual(await podIdentityOwner(pod([{ name: 'a', image: 'host' }]), resolve), { by: 'root' });
  });
});

describe("the sidecar's launch", () => {
  const facts = { server: 'https://cp:8443', connectTo: '10.244.0.1:8443', installation: ['/opt/edgeplane'], main: '/opt/edgeplane/main.js', node: '/usr/bin/node', runDir: '/run/pod/sidecar' };
  const context: LaunchContext = {
    rootfs: '/r', image: {}, env: new Map(), binds: [], netnsPath: '/var/run/netns/p', infraPid: 42, cgroupsPath: '/c', hostname: 'p',
    qosClass: 'Burstable', machineMemoryBytes: 2 ** 33, oomScoreFloor: 0, allowPrivileged: false, seccomp: { type: 'RuntimeDefault' }, host: { arch: 'amd64', kernel: '6.1.0' }, annotations: {},
  };

  it('gives the files away with --identity-owner and CAP_CHOWN alone; runs as root whatever the pod says of its workload', () => {
    const process = sidecarProcess(facts, { uid: 0, gid: 2000 });
    const at = process.args.indexOf('--identity-owner');
    assert.equal(process.args[at + 1], '0:2000');
    const spec: PodSpec = { containers: [{ name: 'app' }, SIDECAR], securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 2000, supplementalGroups: [3000], runAsNonRoot: true } };
    const launch = workloadLaunch(sidecarPodSpec(spec), { ...SIDECAR, command: process.args, securityContext: process.securityContext }, context);
    assert.deepEqual([launch.uid, launch.gid, launch.additionalGids], [0, 0, []]);
    assert.deepEqual(launch.capabilities.effective, ['CAP_CHOWN']);
    assert.deepEqual(launch.capabilities.bounding, ['CAP_CHOWN']);
    assert.equal(launch.noNewPrivileges, true);
    assert.equal(launch.readOnlyRootfs, true);
  });

  it('keeps no capability at all when root keeps the files', () => {
    const process = sidecarProcess(facts);
    assert.ok(!process.args.includes('--identity-owner'));
    const launch = workloadLaunch({}, { ...SIDECAR, command: process.args, securityContext: process.securityContext }, context);
    assert.deepEqual(launch.capabilities.bounding, []);
    assert.equal(launch.uid, 0);
  });
});
