import assert from 'node:assert/strict';
import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { shiftedId, shiftedImageRoot } from './shifted-image-root.js';

const range = { hostId: 300_000, size: 65_536 };
const dir = mkdtempSync(join(tmpdir(), 'shifted-root-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('an image root shifted into a user namespace\'s range', () => {
  it('moves each id by the range\'s first; ids the range lacks become its nobody', () => {
    assert.equal(shiftedId(0, range), 300_000);
    assert.equal(shiftedId(1000, range), 301_000);
    assert.equal(shiftedId(70_000, range), 300_000 + 65_534);
  });

  it('copies the root once, owners shifted, setuid kept, links not followed; the image itself untouched', async () => {
    const image = join(dir, 'image', 'rootfs');
    mkdirSync(join(image, 'bin'), { recursive: true });
    writeFileSync(join(image, 'bin', 'su'), 'x', { mode: 0o755 });
    chmodSync(join(image, 'bin', 'su'), 0o4755);
    writeFileSync(join(image, 'home-file'), 'y');
    chownSync(join(image, 'home-file'), 1000, 1000);
    const outside = join(dir, 'outside');
    writeFileSync(outside, 'host');
    symlinkSync(outside, join(image, 'link'));
    const root = await shiftedImageRoot(image, range);
    assert.equal(root, join(dir, 'image', 'shifted', '300000', 'rootfs'));
    assert.deepEqual([statSync(join(root, 'bin', 'su')).uid, statSync(join(root, 'bin', 'su')).mode & 0o7777], [300_000, 0o4755]);
    assert.deepEqual([statSync(join(root, 'home-file')).uid, statSync(join(root, 'home-file')).gid], [301_000, 301_000]);
    assert.equal(lstatSync(join(root, 'link')).uid, 300_000, 'the link itself');
    assert.equal(statSync(outside).uid, 0, 'not what it names');
    assert.equal(statSync(join(image, 'bin', 'su')).uid, 0, 'the image is unchanged');
    writeFileSync(join(root, 'marker'), 'kept');
    assert.equal(await shiftedImageRoot(image, range), root, 'made once: the second start reuses it');
    assert.equal(statSync(join(root, 'marker')).isFile(), true);
  });
});
