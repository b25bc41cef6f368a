import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { makeTreePrivate } from './private-tree.js';

describe('makeTreePrivate', () => {
  const root = mkdtempSync(join(tmpdir(), 'edgeplane-private-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const mode = (path: string): number => statSync(path).mode & 0o777;

  it('gives folders 0700 and files 0600 where others had access, says which, and leaves links alone', () => {
    const home = join(root, 'home');
    mkdirSync(join(home, 'store'), { recursive: true, mode: 0o755 });
    chmodSync(home, 0o755);
    chmodSync(join(home, 'store'), 0o755);
    writeFileSync(join(home, 'store', 'edgeplane.db'), 'x', { mode: 0o644 });
    writeFileSync(join(home, 'api-token'), 'x', { mode: 0o600 });
    const outside = join(root, 'outside');
    writeFileSync(outside, 'x', { mode: 0o644 });
    symlinkSync(outside, join(home, 'link'));
    const changed = makeTreePrivate(home);
    assert.deepEqual(changed.sort(), [home, join(home, 'store'), join(home, 'store', 'edgeplane.db')].sort());
    assert.deepEqual([mode(home), mode(join(home, 'store')), mode(join(home, 'store', 'edgeplane.db')), mode(join(home, 'api-token'))], [0o700, 0o700, 0o600, 0o600]);
    assert.equal(mode(outside), 0o644, 'a link is not followed');
    assert.deepEqual(makeTreePrivate(home), [], 'a second pass changes nothing');
  });

  it('creates a missing home 0700', () => {
    const home = join(root, 'new', 'home');
    assert.deepEqual(makeTreePrivate(home), []);
    assert.equal(mode(home), 0o700);
  });
});
