import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, beforeEach, describe, it } from 'node:test';
import { makeDirsBeneath, makeMountPointBeneath, openBeneath, pathSteps, PathBeneathError, statBeneath } from './path-beneath.js';

const work = realpathSync(mkdtempSync(join(tmpdir(), 'path-beneath-')));
after(() => rmSync(work, { recursive: true, force: true }));

/** A volume (`root`) with folders a/b/c and a file, and a folder outside it that a symlink may point at. */
let root: string;
let outside: string;
let round = 0;
beforeEach(() => {
  round++;
  root = join(work, `root-${round}`);
  outside = join(work, `outside-${round}`);
  mkdirSync(join(root, 'a/b/c'), { recursive: true });
  writeFileSync(join(root, 'a/file'), 'in the volume');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret'), 'outside');
});

const refused = (pattern: RegExp) => (error: unknown): boolean => error instanceof PathBeneathError && pattern.test(error.message);

describe('pathSteps', () => {
  it('splits a path below a root into its steps: no `.`, no empty step, a leading / is the root; `..` and NUL refused', () => {
    assert.deepEqual(pathSteps('a/./b//c/'), ['a', 'b', 'c']);
    assert.deepEqual(pathSteps('/etc/app.conf'), ['etc', 'app.conf']);
    assert.deepEqual(pathSteps(''), []);
    assert.deepEqual(pathSteps('..data/key'), ['..data', 'key'], 'a name that starts with .. is a name');
    assert.throws(() => pathSteps('a/../../b'), refused(/must not contain '\.\.'/));
    assert.throws(() => pathSteps('..'), refused(/must not contain '\.\.'/));
    assert.throws(() => pathSteps('a\0b'), refused(/NUL/));
  });
});

describe('openBeneath', () => {
  it('holds the file at the end of the path, by a descriptor that /proc/<pid>/fd names', () => {
    const held = openBeneath(root, 'a/b/c');
    try {
      assert.equal(held.stats.ino, statSync(join(root, 'a/b/c')).ino);
      assert.ok(held.stats.isDirectory());
      assert.equal(held.procPath, `/proc/${process.pid}/fd/${held.fd}`);
      assert.equal(held.path, join(root, 'a/b/c'));
    } finally {
      held.close();
    }
    const file = openBeneath(root, 'a/file');
    file.close();
    assert.ok(file.stats.isFile());
  });

  it('refuses a symlink at any step, even one that stays inside the root', () => {
    symlinkSync('a', join(root, 'first'));
    symlinkSync('b', join(root, 'a/middle'));
    symlinkSync('c', join(root, 'a/b/last'));
    assert.throws(() => openBeneath(root, 'first/b/c'), refused(new RegExp(`^unexpected symlink found ${join(root, 'first')}$`)));
    assert.throws(() => openBeneath(root, 'a/middle/c'), refused(/unexpected symlink found .*\/a\/middle$/));
    assert.throws(() => openBeneath(root, 'a/b/last'), refused(/unexpected symlink found .*\/a\/b\/last$/));
  });

  it('refuses an absolute symlink, a symlink to a file, `..`, a step through a file and a missing step', () => {
    symlinkSync('/', join(root, 'host'));
    symlinkSync(join(outside, 'secret'), join(root, 'secret'));
    assert.throws(() => openBeneath(root, 'host'), refused(/unexpected symlink found/));
    assert.throws(() => openBeneath(root, 'host/etc'), refused(/unexpected symlink found .*\/host$/));
    assert.throws(() => openBeneath(root, 'secret'), refused(/unexpected symlink found/));
    assert.throws(() => openBeneath(root, 'a/../../outside-1'), refused(/must not contain '\.\.'/));
    assert.throws(() => openBeneath(root, 'a/file/x'), refused(/a\/file is not a directory/));
    assert.throws(() => openBeneath(root, 'a/nothing'), refused(/no such file or directory/));
  });

  it('keeps holding the folder it opened when that folder is swapped for a symlink; opening it again is refused', () => {
    writeFileSync(join(root, 'a/b/c/mine'), '');
    const held = openBeneath(root, 'a/b/c');
    try {
      renameSync(join(root, 'a/b/c'), join(root, 'a/b/moved'));
      symlinkSync(outside, join(root, 'a/b/c'));
      assert.deepEqual(readdirSync(held.procPath), ['mine'], 'the descriptor names the folder that was opened, not what the path names now');
      assert.throws(() => openBeneath(root, 'a/b/c'), refused(/unexpected symlink found/));
    } finally {
      held.close();
    }
  });

  it('statBeneath answers lstat for the last step and nothing through a symlink', () => {
    symlinkSync('a', join(root, 'link'));
    assert.ok(statBeneath(root, 'a/b')?.isDirectory());
    assert.equal(statBeneath(root, 'link/b'), undefined);
    assert.equal(statBeneath(root, 'link'), undefined);
    assert.equal(statBeneath(root, 'missing'), undefined);
  });
});

describe('makeDirsBeneath', () => {
  it('makes the missing folders with the mode given, past the umask, keeps those there, and holds the last', () => {
    const held = makeDirsBeneath(root, 'a/b/new/deeper', 0o2775);
    held.close();
    assert.equal(held.stats.ino, statSync(join(root, 'a/b/new/deeper')).ino);
    assert.equal(statSync(join(root, 'a/b/new')).mode & 0o7777, 0o2775);
    assert.equal(statSync(join(root, 'a/b/new/deeper')).mode & 0o7777, 0o2775);
    assert.notEqual(statSync(join(root, 'a/b')).mode & 0o7777, 0o2775, 'a folder that was there keeps its mode');
  });

  it('makes nothing through a symlink, wherever it is on the way', () => {
    symlinkSync(outside, join(root, 'escape'));
    symlinkSync('b', join(root, 'a/inside'));
    assert.throws(() => makeDirsBeneath(root, 'escape/new/dir', 0o777), refused(/unexpected symlink found .*\/escape$/));
    assert.throws(() => makeDirsBeneath(root, 'a/inside/new', 0o777), refused(/unexpected symlink found .*\/a\/inside$/));
    assert.throws(() => makeDirsBeneath(root, 'a/file/new', 0o777), refused(/not a directory/));
    assert.deepEqual(readdirSync(outside), ['secret'], 'nothing was made outside');
    assert.deepEqual(readdirSync(join(root, 'a/b')), ['c'], 'nothing was made through the symlink inside either');
  });
});

describe('makeMountPointBeneath', () => {
  it('makes a folder or an empty file and the folders on the way; what is there stays', () => {
    makeMountPointBeneath(root, '/var/lib/data', 'folder');
    makeMountPointBeneath(root, '/etc/app/app.conf', 'file');
    makeMountPointBeneath(root, '/a/file', 'folder');
    assert.ok(statSync(join(root, 'var/lib/data')).isDirectory());
    assert.ok(statSync(join(root, 'etc/app/app.conf')).isFile());
    assert.equal(statSync(join(root, 'etc/app/app.conf')).size, 0);
    assert.ok(statSync(join(root, 'a/file')).isFile(), 'a file already at the mount point is kept');
  });

  it('stops at a symlink or a file on the way and makes nothing outside the root', () => {
    symlinkSync(outside, join(root, 'escape'));
    symlinkSync(join(outside, 'made-file'), join(root, 'dangling'));
    makeMountPointBeneath(root, '/escape/new/dir', 'folder');
    makeMountPointBeneath(root, '/escape/file', 'file');
    makeMountPointBeneath(root, '/dangling', 'file');
    makeMountPointBeneath(root, '/a/file/below', 'folder');
    assert.deepEqual(readdirSync(outside), ['secret']);
  });
});
