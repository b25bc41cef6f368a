import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { execFileSync } from 'node:child_process';
import { tool, toolPath } from '../../../../testing/tools.js';
import { containerCapabilities } from './capabilities.js';
import { removeCgroup } from '../../../host/index.js';
import { containerOciSpec } from '../oci/container-spec.js';
import { conmonLogSizeMax, criLogFiles, LogRotationError, rotateContainerLog, rotateContainerLogIfNeeded, type LogRotationPolicy } from './container-log-rotation.js';
import { containerResources } from './linux-resources.js';
import { RuncContainers, type ContainerFiles } from './runc-containers.js';

describe('the list of CRI log files', () => {
  it('orders rotated files by timestamp, then by the number that splits one second, then the live log; conmon\'s .tmp is not one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cri-logs-'));
    try {
      const log = join(dir, 'container.log');
      for (const suffix of ['', '.20261127-120000.10', '.20261127-120000', '.tmp', '.20261127-120000.2', '.20261126-235959', '.gz', '.20261127-120001']) writeFileSync(`${log}${suffix}`, '');
      writeFileSync(join(dir, 'other.log.20261127-120000'), '');
      assert.deepEqual(
        (await criLogFiles(log)).map((file) => file.slice(dir.length + 1)),
        ['container.log.20261126-235959', 'container.log.20261127-120000', 'container.log.20261127-120000.2', 'container.log.20261127-120000.10', 'container.log.20261127-120001', 'container.log'],
      );
      assert.deepEqual(await criLogFiles(join(dir, 'missing', 'container.log')), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('rotating a log conmon writes', () => {
  const suffix = randomBytes(3).toString('hex');
  const netns = `ep-test-${suffix}`;
  const cgroupParent = `/edgeplane-test-${suffix}`;
  const dir = mkdtempSync(join(tmpdir(), 'log-rotation-'));
  const rootfs = join(dir, 'rootfs');
  const containers = new RuncContainers(tool('runc'), tool('conmon'), join(dir, 'runc'));
  const made: string[] = [];

  before(() => {
    execFileSync(toolPath('ip'), ['netns', 'add', netns]);
    mkdirSync(join(rootfs, 'bin'), { recursive: true });
    copyFileSync(toolPath('busybox'), join(rootfs, 'bin', 'busybox'));
    for (const applet of ['sh', 'seq', 'sleep', 'yes']) symlinkSync('busybox', join(rootfs, 'bin', applet));
  });

  after(async () => {
    for (const id of made) await containers.delete(id, true).catch(() => undefined);
    await removeCgroup(cgroupParent);
    execFileSync(toolPath('ip'), ['netns', 'delete', netns]);
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(id: string, script: string, runner = containers): Promise<ContainerFiles> {
    const base = join(dir, id);
    const files: ContainerFiles = { bundle: join(base, 'bundle'), log: join(base, 'logs', 'container.log'), exitDir: join(base, 'exits'), persistDir: join(base, 'persist'), socketDir: join(base, 'sockets') };
    for (const folder of [files.bundle, join(base, 'logs'), files.exitDir, files.persistDir, files.socketDir]) mkdirSync(folder, { recursive: true });
    const spec = containerOciSpec({
      rootfs,
      readOnlyRootfs: true,
      args: ['/bin/sh', '-c', script],
      env: ['PATH=/bin'],
      cwd: '/',
      uid: 0,
      gid: 0,
      additionalGids: [],
      terminal: false,
      capabilities: containerCapabilities(undefined),
      noNewPrivileges: true,
      oomScoreAdj: 1000,
      resources: containerResources(undefined, 256),
      cgroupsPath: `${cgroupParent}/${id}`,
      netns: `/var/run/netns/${netns}`,
      hostname: id,
      binds: [],
      annotations: {},
    });
    writeFileSync(join(files.bundle, 'config.json'), JSON.stringify(spec));
    made.push(id);
    await runner.create(id, files);
    await runner.start(id);
    return files;
  }

  /** Prints 0 … chunks×3000−1, one number a line, in chunks of 3000 lines `pause` seconds apart. */
  const counting = (chunks: number, pause: string): string =>
    `k=0; while [ $k -lt ${chunks} ]; do seq $((k*3000)) $((k*3000+2999)); sleep ${pause}; k=$((k+1)); done`;

  async function exited(id: string, files: ContainerFiles): Promise<boolean> {
    return (await containers.exitCode(id, files)) !== undefined;
  }

  /** The numbers the container printed, read from every log file in order (partial lines joined, as a reader of CRI logs does). */
  async function printed(files: ContainerFiles): Promise<number[]> {
    const numbers: number[] = [];
    let partial = '';
    for (const file of await criLogFiles(files.log)) {
      for (const line of readFileSync(file, 'utf8').split('\n')) {
        if (line === '') continue;
        const match = /^\S+ stdout ([PF]) (\d*)$/.exec(line);
        assert.ok(match !== null, `a CRI log line: ${JSON.stringify(line)}`);
        partial += match[2] as string;
        if (match[1] === 'P') continue;
        numbers.push(Number(partial));
        partial = '';
      }
    }
    assert.equal(partial, '', 'no partial line left over');
    return numbers;
  }

  /** Rotates as fast as the log grows past `maxSize` until the container ends; the number of rotations. */
  async function rotateWhileRunning(id: string, files: ContainerFiles, policy: { maxSize: number; maxFiles: number }, check?: () => Promise<void>): Promise<number> {
    let rotations = 0;
    while (!(await exited(id, files))) {
      try {
        if (await rotateContainerLogIfNeeded(files, policy)) rotations++;
      } catch (error) {
        // The container (and its conmon) may end between the check and the reopen.
        if (!(error instanceof LogRotationError) || !(await exited(id, files))) throw error;
      }
      await check?.();
      await delay(2);
    }
    return rotations;
  }

  it('no line is lost or written twice across the rotated files of a busy container', async () => {
    const lines = 20 * 3000;
    const files = await start('busy', counting(20, '0.02'));
    const rotations = await rotateWhileRunning('busy', files, { maxSize: 64 * 1024, maxFiles: 10_000 });
    assert.ok(rotations >= 3, `rotated ${rotations} times`);
    const numbers = await printed(files);
    assert.equal(numbers.length, lines);
    numbers.forEach((n, i) => assert.equal(n, i));
    const sizes = (await criLogFiles(files.log)).slice(0, -1).map((file) => statSync(file).size);
    assert.ok(sizes.every((size) => size >= 64 * 1024), 'every rotated file had reached the size');
  });

  it('keeps at most maxFiles files, the live one included, dropping the oldest', async () => {
    const lines = 20 * 3000;
    const files = await start('capped', counting(20, '0.05'));
    let most = 0;
    const rotations = await rotateWhileRunning('capped', files, { maxSize: 32 * 1024, maxFiles: 3 }, async () => {
      most = Math.max(most, (await criLogFiles(files.log)).length);
    });
    assert.ok(rotations >= 3, `rotated ${rotations} times`);
    assert.equal(most, 3);
    // The first kept line may be the end of a line whose start went with a removed file.
    const numbers = (await printed(files)).slice(1);
    assert.ok(numbers.length > 0 && numbers.length < lines);
    const firstWrong = numbers.findIndex((n, i) => n !== lines - numbers.length + i);
    assert.equal(firstWrong, -1, `the kept files hold the newest lines, each once, in order: ${JSON.stringify(numbers.slice(Math.max(0, firstWrong - 3), firstWrong + 3))} at ${firstWrong} of ${numbers.length}; files ${JSON.stringify((await criLogFiles(files.log)).map((f) => [f.slice(-20), statSync(f).size]))}`);
  });

  it('rotations within one second keep their order as the oldest are removed', async () => {
    const files = await start('ticks', 'while true; do echo 1; sleep 0.01; done');
    const now = new Date(Date.UTC(2026, 10, 27, 12, 0, 0));
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await rotateContainerLog(files, { maxSize: 1, maxFiles: 3 }, now)).slice(files.log.length));
    assert.deepEqual(made, ['.20261127-120000', '.20261127-120000.1', '.20261127-120000.2', '.20261127-120000.3', '.20261127-120000.4']);
    assert.deepEqual((await criLogFiles(files.log)).map((file) => file.slice(files.log.length)), ['.20261127-120000.3', '.20261127-120000.4', '']);
    await containers.kill('ticks', 'KILL');
  });

  interface Flooded {
    readonly most: number;
    readonly rotations: number;
  }

  /** Bytes of every file in the log's folder (live, rotated, conmon's .tmp). */
  const logBytes = (files: ContainerFiles): number => {
    const folder = dirname(files.log);
    return readdirSync(folder).reduce((sum, name) => sum + (statSync(join(folder, name), { throwIfNoEntry: false })?.size ?? 0), 0);
  };

  /** Floods the log with `yes` for `ms`, rotating every `everyMs` as the agent does; the most bytes its files held at once, and the rotations. */
  async function flood(id: string, runner: RuncContainers, policy: LogRotationPolicy, ms: number, everyMs: number): Promise<Flooded> {
    const files = await start(id, 'yes', runner);
    let most = 0;
    let rotations = 0;
    const end = Date.now() + ms;
    let nextRotation = Date.now() + everyMs;
    while (Date.now() < end) {
      most = Math.max(most, logBytes(files));
      if (Date.now() >= nextRotation) {
        nextRotation += everyMs;
        if (await rotateContainerLogIfNeeded(files, policy)) rotations++;
      }
      await delay(2);
    }
    await containers.kill(id, 'KILL');
    return { most, rotations };
  }

  it('holds a log flood within twice its rotation cap (size × files): conmon replaces a file that reaches twice the size between two rotations', async (t) => {
    const policy = { maxSize: 256 * 1024, maxFiles: 3 };
    const bound = 2 * policy.maxSize * policy.maxFiles;
    const capped = await flood('flood', new RuncContainers(tool('runc'), tool('conmon'), join(dir, 'runc'), conmonLogSizeMax(policy)), policy, 3000, 500);
    assert.ok(capped.rotations >= 1, `rotated ${capped.rotations} times`);
    assert.ok(capped.most <= bound, `the log held ${capped.most} bytes at most, ${bound} allowed`);
    assert.ok(capped.most > 2 * policy.maxSize, `the flood filled more than one file (${capped.most} bytes)`);
    // Without conmon's cap, the same flood outgrows the bound between two rotations.
    const uncapped = await flood('flood-uncapped', containers, policy, 1000, 500);
    t.diagnostic(`a yes flood: ${capped.most} bytes at most with conmon's cap (bound ${bound}), ${uncapped.most} without it, rotating every 500 ms`);
    assert.ok(uncapped.most > bound, `without the cap the log held ${uncapped.most} bytes`);
  });

  it('a log whose conmon has gone is not rotated, and stays where it was', async () => {
    const files = await start('gone', 'seq 1 3');
    for (let i = 0; i < 200 && !(await exited('gone', files)); i++) await delay(20);
    // conmon exits right after writing the exit file.
    for (let i = 0; i < 100; i++) {
      const pid = Number(readFileSync(join(files.persistDir, 'conmon.pid'), 'utf8'));
      if (!isAlive(pid)) break;
      await delay(20);
    }
    await assert.rejects(rotateContainerLog(files), (error: unknown) => error instanceof LogRotationError && /conmon is not running/.test(error.message));
    assert.deepEqual(await criLogFiles(files.log), [files.log]);
    assert.deepEqual(await printed(files), [1, 2, 3]);
    assert.equal(await rotateContainerLogIfNeeded(files), false, 'a small log is left alone');
  });
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
