import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { replaceFileAtomic, writeFilesAtomic } from './atomic-file.js';

const root = mkdtempSync(join(tmpdir(), 'atomic-files-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('writeFilesAtomic', () => {
  it('writeFilesAtomic replaces every file with its contents and exact mode and leaves no temporary file', async () => {
    const dir = join(root, 'ok');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.key'), 'old key', { mode: 0o644 });
    await writeFilesAtomic(dir, [
      { name: 'a.key', contents: 'new key', mode: 0o600 },
      { name: 'b.crt', contents: Buffer.from('certificate'), mode: 0o644 },
    ]);
    assert.deepEqual(readdirSync(dir).sort(), ['a.key', 'b.crt']);
    assert.deepEqual([readFileSync(join(dir, 'a.key'), 'utf8'), readFileSync(join(dir, 'b.crt'), 'utf8')], ['new key', 'certificate']);
    assert.deepEqual([statSync(join(dir, 'a.key')).mode & 0o777, statSync(join(dir, 'b.crt')).mode & 0o777], [0o600, 0o644]);
  });

  it('writeFilesAtomic replaces no file when one cannot be written, and removes the temporary files it wrote', async () => {
    const dir = join(root, 'blocked');
    mkdirSync(dir);
    writeFileSync(join(dir, 'a.key'), 'old key');
    // A folder where b.crt's temporary file would go: opening it for writing fails.
    mkdirSync(join(dir, `b.crt.${process.pid}.tmp`));
    await assert.rejects(
      writeFilesAtomic(dir, [
        { name: 'a.key', contents: 'new key', mode: 0o600 },
        { name: 'b.crt', contents: 'certificate', mode: 0o644 },
      ]),
      /EISDIR/,
    );
    assert.equal(readFileSync(join(dir, 'a.key'), 'utf8'), 'old key');
    assert.deepEqual(readdirSync(dir).sort(), ['a.key', `b.crt.${process.pid}.tmp`], 'a.key\'s temporary file is gone');
  });
});

describe('replaceFileAtomic', () => {
  it('replaceFileAtomic replaces the file with its mode, over a temporary file a crash left, and leaves none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'replace-atomic-'));
    try {
      const path = join(dir, 'state.json');
      writeFileSync(path, 'old');
      writeFileSync(`${path}.${process.pid}.tmp`, 'half', { mode: 0o644 });
      await replaceFileAtomic(path, '{"new":true}', 0o600);
      assert.equal(readFileSync(path, 'utf8'), '{"new":true}');
      assert.equal(statSync(path).mode & 0o777, 0o600);
      assert.deepEqual(readdirSync(dir), ['state.json']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
