import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { tool, toolPath } from '../../../../testing/tools.js';
import { containerCapabilities } from '../containers/capabilities.js';
import { cgroupExists, IpCommand, removeCgroup } from '../../../host/index.js';
import { containerOciSpec } from '../oci/container-spec.js';
import { goArch } from '../oci/seccomp/seccomp-template.js';
import { hostImagePlan, inspectHost, prepareRoot } from '../images/host-image.js';
import { parseCidr, podAddresses } from '../network/ipv4-cidr.js';
import { containerResources } from '../containers/linux-resources.js';
import { PodSandboxes } from './pod-sandbox.js';
import { SiteUserRanges } from './user-range-claims.js';
import { containerFiles, makeContainerFolders, podContainerId } from '../containers/container-instance.js';
import { AddressLeases } from '../network/address-leases.js';
import { oomScoreFloor } from '../containers/oom-score-floor.js';
import { RuncContainers } from '../containers/runc-containers.js';
import { SiteNetwork } from '../network/site-network.js';
import { siteNamespaceName } from '../network/pod-interface.js';
import { createLogger } from '../../../../observability/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'pod-sandbox-'));
const ip = new IpCommand(toolPath('ip'));
const logger = createLogger({ level: 'silent' });
const network = new SiteNetwork({ ip, nft: tool('nft'), netns: siteNamespaceName(dir, 'edge'), cidr: parseCidr('10.244.251.0/29'), filterStateFile: join(dir, 'filter.json'), logger });
const containers = new RuncContainers(tool('runc'), tool('conmon'), join(dir, 'runc'));
const cgroupParent = `/edgeplane-test-${randomBytes(3).toString('hex')}`;
const sandboxes = new PodSandboxes({ containers, network, catatonit: toolPath('catatonit'), podsDir: join(dir, 'pods'), cgroupParent, oomScoreFloor: oomScoreFloor(), podPidsLimit: 40,
  leases: new AddressLeases(join(dir, 'addresses'), network.cidr),
  allowUnsafeSysctls: false,
  seccompHost: { arch: goArch(process.arch), kernel: release() },
  siteType: 'CUSTOMER_EDGE',
  userRanges: new SiteUserRanges(dir, 'pod-sandbox-test', join(dir, 'user-range-claims')),
});

after(async () => {
  for (const state of await containers.list().catch(() => [])) await containers.delete(state.id, true).catch(() => undefined);
  await network.remove();
  await removeCgroup(cgroupParent);
  rmSync(dir, { recursive: true, force: true });
});

test('a pod sandbox holds the pod\'s network, hostname, IPC and PIDs limit; a host-image container joins it; removal leaves nothing', async () => {
  await network.ensure();
  const uid = randomUUID();
  const [address] = [...podAddresses(network.cidr)] as [number];
  const owner = { cluster: { tenant: 't', namespace: 'ns', name: 'vk' }, namespace: 'ns', name: 'web-0' };
  const sandbox = await sandboxes.create({ uid, hostname: 'web-0', address, owner, sysctls: { 'net.ipv4.ping_group_range': '0 2147483647' } });
  assert.equal(sandbox.address, '10.244.251.2');
  assert.equal((await containers.state(sandbox.infraId))?.status, 'running');

  const id = podContainerId(uid, 'app');
  const files = containerFiles(sandbox.dir, 'app');
  await makeContainerFolders(files);
  const rootfs = join(sandbox.dir, 'app-root');
  const plan = hostImagePlan(inspectHost);
  prepareRoot(rootfs, plan);
  const spec = containerOciSpec({
    rootfs,
    readOnlyRootfs: true,
    args: ['/bin/sh', '-c', 'hostname; echo pid $$; test -e /etc/shadow && echo shadow visible; ip -o -4 addr show dev eth0 2>/dev/null | wc -l; (for i in $(seq 60); do sleep 3 & done) 2>/dev/null; set -- /proc/[0-9]*; echo procs $#; exit 0'],
    env: ['PATH=/usr/sbin:/usr/bin:/sbin:/bin'],
    cwd: '/',
    uid: 65534,
    gid: 65534,
    additionalGids: [],
    terminal: false,
    capabilities: containerCapabilities(undefined),
    noNewPrivileges: true,
    oomScoreAdj: 1000,
    resources: containerResources({ limits: { memory: '64Mi' } }, 128),
    cgroupsPath: `${sandbox.cgroup}/app`,
    netns: sandbox.netnsPath,
    ipcNamespace: `/proc/${sandbox.infraPid}/ns/ipc`,
    utsNamespace: `/proc/${sandbox.infraPid}/ns/uts`,
    binds: plan.binds,
    annotations: {},
  });
  writeFileSync(join(files.bundle, 'config.json'), JSON.stringify(spec));
  await containers.create(id, files);
  await containers.start(id);
  let code: number | undefined;
  for (let i = 0; i < 200 && code === undefined; i++) {
    code = await containers.exitCode(id, files);
    if (code === undefined) await delay(25);
  }
  assert.equal(code, 0);
  const output = readFileSync(files.log, 'utf8').split('\n').map((line) => line.split(' ').slice(3).join(' '));
  assert.equal(output[0], 'web-0');
  assert.equal(output[1], 'pid 1');
  assert.ok(!output.includes('shadow visible'));
  // The pod's cgroup holds its containers together (the container's own limit is 128): 40 less the infra process.
  const procs = Number(/^procs (\d+)$/m.exec(output.join('\n'))?.[1]);
  assert.ok(procs >= 30 && procs <= 39, `a fork bomb stops at the pod's pids.max: ${procs} processes`);
  await containers.delete(id);

  // A mount left in the pod's folder (a claim's folder bound by subPath): the folder is kept, nothing below the mount removed.
  const claim = join(dir, 'claim');
  const bound = join(sandbox.dir, 'volume-subpaths', 'data');
  mkdirSync(claim);
  writeFileSync(join(claim, 'kept'), 'data');
  mkdirSync(bound, { recursive: true });
  execFileSync(toolPath('mount'), ['--bind', claim, bound]);
  await assert.rejects(sandboxes.remove(uid), /pod folder .* kept: still mounted below it: .*volume-subpaths\/data/);
  assert.equal(readFileSync(join(claim, 'kept'), 'utf8'), 'data');
  execFileSync(toolPath('umount'), [bound]);

  await sandboxes.remove(uid);
  assert.equal(existsSync(sandbox.dir), false);
  assert.equal(await cgroupExists(`${cgroupParent}/${uid}`), false);
  assert.ok(!(await ip.namespaces()).has(sandbox.netnsPath.split('/').at(-1) as string));
  assert.deepEqual(await containers.list(), []);
});
