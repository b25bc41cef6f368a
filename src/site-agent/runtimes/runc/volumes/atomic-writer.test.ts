import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { AtomicVolumeWriter } from './atomic-writer.js';
import type { VolumeFile } from './volume-types.js';

const root = mkdtempSync(join(tmpdir(), 'atomic-writer-'));
after(() => rmSync(root, { recursive: true, force: true }));

const file = (path: string, text: string, mode = 0o644): VolumeFile => ({ path, data: Buffer.from(text), mode });
const target = (name: string): string => {
  const dir = join(root, name);
  mkdirSync(dir);
  return dir;
};

describe('AtomicVolumeWriter', () => {
  it('writes files into a timestamped folder behind ..data, with user-visible names as symlinks and exact modes', async () => {
    const dir = target('first');
    const writer = new AtomicVolumeWriter(dir);
    assert.equal(await writer.write([file('app.conf', 'port=80', 0o400), file('nested/deep/key', 'v', 0o640)]), true);
    const data = readlinkSync(join(dir, '..data'));
    assert.match(data, /^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\.\w+$/);
    assert.deepEqual(readdirSync(dir).sort(), [data, '..data', 'app.conf', 'nested'].sort());
    assert.equal(readlinkSync(join(dir, 'app.conf')), '..data/app.conf');
    assert.equal(readlinkSync(join(dir, 'nested')), '..data/nested');
    assert.equal(readFileSync(join(dir, 'nested/deep/key'), 'utf8'), 'v');
    assert.equal(statSync(join(dir, 'app.conf')).mode & 0o7777, 0o400);
    assert.equal(statSync(join(dir, 'nested/deep/key')).mode & 0o7777, 0o640);
    assert.equal(statSync(join(dir, data)).mode & 0o7777, 0o755);
  });

  it('writing the same payload again changes nothing; a changed byte, mode or set of files swaps the whole folder', async () => {
    const dir = target('again');
    const writer = new AtomicVolumeWriter(dir);
    await writer.write([file('a', '1'), file('b', '2')]);
    const first = readlinkSync(join(dir, '..data'));
    const linkTime = lstatSync(join(dir, 'a')).ctimeMs;
    assert.equal(await writer.write([file('b', '2'), file('./a', '1')]), false);
    assert.equal(readlinkSync(join(dir, '..data')), first);
    assert.equal(lstatSync(join(dir, 'a')).ctimeMs, linkTime);

    assert.equal(await writer.write([file('a', '1'), file('b', '2', 0o600)]), true, 'a mode change is a change');
    const second = readlinkSync(join(dir, '..data'));
    assert.notEqual(second, first);
    assert.equal(statSync(join(dir, 'b')).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('..')).sort(), [second, '..data'].sort(), 'the old folder is gone');
  });

  it('an update is seen through the same symlinks; removed keys disappear, other entries of the folder stay', async () => {
    const dir = target('update');
    const writer = new AtomicVolumeWriter(dir);
    await writer.write([file('keep', 'old'), file('drop', 'x'), file('sub/one', '1')]);
    mkdirSync(join(dir, 'unrelated'));
    await writer.write([file('keep', 'new'), file('added', 'y')]);
    assert.equal(readFileSync(join(dir, 'keep'), 'utf8'), 'new');
    assert.equal(readFileSync(join(dir, 'added'), 'utf8'), 'y');
    const data = readlinkSync(join(dir, '..data'));
    assert.deepEqual(readdirSync(dir).sort(), [data, '..data', 'added', 'keep', 'unrelated'].sort());
  });

  it('removes timestamped folders a crash left behind and a stale ..data_tmp, and refuses payload paths outside the folder', async () => {
    const dir = target('crash');
    mkdirSync(join(dir, '..2020_01_01_00_00_00.abc'));
    const writer = new AtomicVolumeWriter(dir);
    await writer.write([file('a', '1')]);
    assert.deepEqual(readdirSync(dir).filter((name) => name.startsWith('..20')), [readlinkSync(join(dir, '..data'))]);
    await assert.rejects(writer.write([file('../x', '1')]), /must not contain '\.\.'/);
    await assert.rejects(writer.write([file('..data', '1')]), /must not start with '\.\.'/);
  });

  it('serializes concurrent writes to one folder: the last one wins and one folder remains', async () => {
    const dir = target('concurrent');
    const [one, two] = [new AtomicVolumeWriter(dir), new AtomicVolumeWriter(dir)];
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two).write([file('n', String(i))])));
    assert.equal(readFileSync(join(dir, 'n'), 'utf8'), '9');
    assert.equal(readdirSync(dir).filter((name) => name.startsWith('..20')).length, 1);
  });
});
