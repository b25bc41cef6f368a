import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { tool, toolPath } from '../../../../testing/tools.js';
import { containerCapabilities } from './capabilities.js';
import { cgroupExists, removeCgroup } from '../../../host/index.js';
import { containerOciSpec } from '../oci/container-spec.js';
import { containerResources } from './linux-resources.js';
import { RuncContainers, type ContainerFiles } from './runc-containers.js';

const ip = toolPath('ip');
const suffix = randomBytes(3).toString('hex');
const netns = `ep-test-${suffix}`;
const cgroupParent = `/edgeplane-test-${suffix}`;
const dir = mkdtempSync(join(tmpdir(), 'runc-containers-'));
const rootfs = join(dir, 'rootfs');
const containers = new RuncContainers(tool('runc'), tool('conmon'), join(dir, 'runc'));
const made: string[] = [];

before(() => {
  execFileSync(ip, ['netns', 'add', netns]);
  mkdirSync(join(rootfs, 'bin'), { recursive: true });
  copyFileSync(toolPath('busybox'), join(rootfs, 'bin', 'busybox'));
  for (const applet of ['sh', 'echo', 'head', 'tail', 'sleep', 'cat']) symlinkSync('busybox', join(rootfs, 'bin', applet));
});

after(async () => {
  for (const id of made) await containers.delete(id, true).catch(() => undefined);
  await removeCgroup(cgroupParent);
  execFileSync(ip, ['netns', 'delete', netns]);
  rmSync(dir, { recursive: true, force: true });
});

function bundle(id: string, args: string[], limits?: { memory?: string; cpu?: string }): ContainerFiles {
  const base = join(dir, id);
  const files: ContainerFiles = { bundle: join(base, 'bundle'), log: join(base, 'log'), exitDir: join(base, 'exits'), persistDir: join(base, 'persist'), socketDir: join(base, 'sockets') };
  for (const folder of [files.bundle, files.exitDir, files.persistDir, files.socketDir]) mkdirSync(folder, { recursive: true });
  const spec = containerOciSpec({
    rootfs,
    readOnlyRootfs: true,
    args,
    env: ['PATH=/bin'],
    cwd: '/',
    uid: 0,
    gid: 0,
    additionalGids: [],
    terminal: false,
    capabilities: containerCapabilities(undefined),
    noNewPrivileges: true,
    oomScoreAdj: 1000,
    resources: containerResources(limits === undefined ? undefined : { limits }, 256),
    cgroupsPath: `${cgroupParent}/${id}`,
    netns: `/var/run/netns/${netns}`,
    hostname: id,
    binds: [],
    annotations: {},
  });
  writeFileSync(join(files.bundle, 'config.json'), JSON.stringify(spec));
  made.push(id);
  return files;
}

async function waitForExit(id: string, files: ContainerFiles): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const code = await containers.exitCode(id, files);
    if (code !== undefined) return code;
    await delay(50);
  }
  throw new Error(`${id} did not exit`);
}

test('a container runs under conmon: CRI log lines for stdout and stderr, and its exit code', async () => {
  const files = bundle('echo', ['/bin/sh', '-c', 'echo hello; echo oops >&2; exit 3']);
  const pid = await containers.create('echo', files);
  assert.ok(pid > 0);
  assert.equal((await containers.state('echo'))?.status, 'created');
  await containers.start('echo');
  assert.equal(await waitForExit('echo', files), 3);
  const lines = readFileSync(files.log, 'utf8').trim().split('\n');
  assert.match(lines[0] as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+[+-Z][\d:]* stdout F hello$/);
  assert.match(lines[1] as string, / stderr F oops$/);
  assert.equal(await containers.oomKilled(files), false);
  await containers.delete('echo');
  assert.equal(await containers.state('echo'), undefined);
});

test('the memory limit is in the cgroup and a container over it is OOM-killed; conmon notes it in the container\'s folders, not the agent\'s', async () => {
  const files = bundle('hog', ['/bin/sh', '-c', 'head -c 200000000 /dev/zero | tail'], { memory: '16Mi', cpu: '250m' });
  const agentFolderHadOom = existsSync(join(process.cwd(), 'oom'));
  await containers.create('hog', files);
  assert.equal(readFileSync(`/sys/fs/cgroup/memory${cgroupParent}/hog/memory.limit_in_bytes`, 'utf8').trim(), String(16 * 2 ** 20));
  assert.equal(readFileSync(`/sys/fs/cgroup/cpu${cgroupParent}/hog/cpu.cfs_quota_us`, 'utf8').trim(), '25000');
  await containers.start('hog');
  const code = await waitForExit('hog', files);
  assert.notEqual(code, 0);
  assert.equal(await containers.oomKilled(files), true);
  assert.equal(existsSync(join(dirname(files.bundle), 'oom')), true, 'conmon ran in the container\'s folder');
  if (!agentFolderHadOom) assert.equal(existsSync(join(process.cwd(), 'oom')), false, 'nothing in the agent\'s folder');
  await containers.delete('hog');
});

test('a bundle runc refuses fails creation with runc\'s reason', async () => {
  const files = bundle('broken', ['/bin/does-not-exist']);
  await assert.rejects(
    (async () => {
      await containers.create('broken', files);
      await containers.start('broken');
    })(),
    /does-not-exist|no such file/i,
  );
});

test('deleting the containers and the pod cgroup leaves no cgroup behind', async () => {
  for (const id of made) await containers.delete(id, true).catch(() => undefined);
  assert.deepEqual(await removeCgroup(cgroupParent), []);
  assert.equal(await cgroupExists(cgroupParent), false);
  assert.deepEqual(await containers.list(), []);
});
