import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { linkSync, lstatSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { toolPath } from '../../../../testing/tools.js';
import { FolderWalk } from './folder-usage.js';

const blocksOf = (path: string): number => lstatSync(path).blocks * 512;
/** What `du -skx` says of a folder, in bytes (busybox's du: hard links once, one file system). */
const du = (path: string): number => 1024 * Number(execFileSync(toolPath('busybox'), ['du', '-s', '-k', '-x', path], { encoding: 'utf8' }).split('\t')[0]);

/** A whole walk in steps of `budget` entries; the figure and the number of steps. */
async function walkAll(walk: FolderWalk, budget: number): Promise<{ bytes: number; steps: number }> {
  for (let steps = 1; steps < 100_000; steps++) {
    const usage = await walk.step(budget);
    if (usage.complete) return { bytes: usage.bytes, steps };
  }
  throw new Error('the walk never ended');
}

describe('the budgeted du of a folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'folder-usage-'));
  after(() => {
    try {
      execFileSync(toolPath('umount'), [join(dir, 'mounted', 'tmp')], { stdio: 'ignore' });
    } catch {
      // not mounted
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts disk blocks as du does: a sparse file what it holds, hard links once, symbolic links not followed', async () => {
    const root = join(dir, 'du');
    mkdirSync(join(root, 'a', 'b'), { recursive: true });
    writeFileSync(join(root, 'a', 'b', 'full'), Buffer.alloc(1024 * 1024, 1));
    writeFileSync(join(root, 'sparse'), '');
    truncateSync(join(root, 'sparse'), 1024 ** 3);
    linkSync(join(root, 'a', 'b', 'full'), join(root, 'hard'));
    symlinkSync('/usr', join(root, 'usr'));
    const expected = ['', 'a', 'a/b', 'a/b/full', 'sparse', 'usr'].reduce((sum, path) => sum + blocksOf(join(root, path)), 0);
    const walk = new FolderWalk(root);
    assert.deepEqual(await walk.step(1000), { bytes: expected, complete: true });
    assert.ok(expected >= 1024 * 1024 && expected < 1024 * 1024 + 64 * 1024, `${expected} bytes: the 1 MiB once, the sparse file nearly nothing`);
    assert.equal(du(root), expected, 'what du -sx says');
  });

  it('resumes where its budget stopped it, and counts the whole folder over several steps', async () => {
    const root = join(dir, 'many');
    for (let d = 0; d < 10; d++) {
      mkdirSync(join(root, `d${d}`), { recursive: true });
      for (let f = 0; f < 50; f++) writeFileSync(join(root, `d${d}`, `f${f}`), 'x');
    }
    const whole = du(root);
    const walk = new FolderWalk(root);
    const first = await walk.step(100);
    assert.equal(first.complete, false);
    assert.ok(first.bytes > 0 && first.bytes < whole, 'a step shows what it counted so far');
    const { bytes, steps } = await walkAll(walk, 100);
    assert.equal(bytes, whole);
    assert.ok(steps >= 4, `${steps} more steps of 100 entries for 510`);
    // The next walk starts over; until it ends, the last whole figure stands.
    rmSync(join(root, 'd0'), { recursive: true });
    assert.equal((await walk.step(100)).bytes, whole);
    assert.ok((await walkAll(walk, 100)).bytes < whole);
    walk.close();
  });

  it('stays on the folder\'s file system: a mount below it is not counted', async () => {
    const root = join(dir, 'mounted');
    mkdirSync(join(root, 'tmp'), { recursive: true });
    execFileSync(toolPath('mount'), ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', join(root, 'tmp')]);
    writeFileSync(join(root, 'tmp', 'in-memory'), Buffer.alloc(2 * 1024 * 1024, 1));
    assert.deepEqual(await new FolderWalk(root).step(1000), { bytes: blocksOf(root), complete: true });
    execFileSync(toolPath('umount'), [join(root, 'tmp')]);
  });

  it('never leaves the folder when a folder listed is swapped for a symbolic link before it is read', async () => {
    const root = join(dir, 'swap');
    mkdirSync(join(root, 'inner'), { recursive: true });
    writeFileSync(join(root, 'inner', 'file'), 'x');
    const walk = new FolderWalk(root);
    // One entry: the root's listing (inner) is read, inner is not opened yet.
    assert.equal((await walk.step(1)).complete, false);
    renameSync(join(root, 'inner'), join(root, 'moved'));
    symlinkSync('/usr', join(root, 'inner'));
    const { bytes } = await walkAll(walk, 1);
    assert.ok(bytes < 1024 * 1024, `${bytes} bytes: /usr was not walked`);
  });

  it('counts a file nested deeper than a path can name (over PATH_MAX)', async () => {
    const root = join(dir, 'deep');
    mkdirSync(root);
    const name = 'n'.repeat(200);
    const sh = (script: string): string => execFileSync(toolPath('busybox'), ['sh', '-c', script], { cwd: root, encoding: 'utf8' });
    // Two chains of 15 folders of 201 bytes (3,015 bytes each: a shell can name them), 1 MiB at the
    // bottom of the first, which then moves to the bottom of the second: 6,030 bytes deep.
    const chain = Array.from({ length: 15 }, () => name).join('/');
    sh(`mkdir -p a/${chain} b/${chain} && dd if=/dev/zero of=a/${chain}/bottom bs=1024 count=1024 2>/dev/null && mv a b/${chain}/`);
    try {
      const { bytes } = await walkAll(new FolderWalk(root), 1000);
      assert.ok(bytes >= 1024 * 1024 + 31 * blocksOf(root), `${bytes} bytes: the file at the bottom and every folder`);
    } finally {
      // Shorter names, so that rm can reach the bottom.
      sh(`cd b && while [ -d ${name} ]; do mv ${name} x; cd x; done; cd a && while [ -d ${name} ]; do mv ${name} x; cd x; done`);
    }
  });

  it('a folder that is not there holds nothing; a file alone is its own blocks', async () => {
    assert.deepEqual(await new FolderWalk(join(dir, 'missing')).step(10), { bytes: 0, complete: true });
    writeFileSync(join(dir, 'lone'), Buffer.alloc(8192, 1));
    assert.deepEqual(await new FolderWalk(join(dir, 'lone')).step(10), { bytes: statSync(join(dir, 'lone')).blocks * 512, complete: true });
  });
});
