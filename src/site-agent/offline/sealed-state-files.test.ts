import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fakeTimers } from '../../common/testing/fake-timers.js';
import { createLogger } from '../../observability/logger.js';
import { SealedStateFiles } from './sealed-state-files.js';

const logger = createLogger({ level: 'silent' });
const root = mkdtempSync(join(tmpdir(), 'edgeplane-sealed-'));
after(() => rmSync(root, { recursive: true, force: true }));
let count = 0;
const freshDir = (): string => join(root, `state-${count++}`);
const SECRET = 'hunter2-the-database-password';

describe('sealed state files', () => {
  it('persist documents and restore them in a new process, private and sealed under the site key', async () => {
    const dir = freshDir();
    const timers = fakeTimers();
    const files = new SealedStateFiles(dir, timers, logger);
    files.put('objects-secrets', () => ({ items: [{ data: { password: Buffer.from(SECRET).toString('base64'), plain: SECRET } }] }));
    await files.close();
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    for (const name of readdirSync(dir)) {
      assert.equal(statSync(join(dir, name)).mode & 0o777, 0o600, name);
      const bytes = readFileSync(join(dir, name));
      assert.ok(!bytes.includes(SECRET), `${name} holds the secret in the clear`);
      assert.ok(!bytes.includes(Buffer.from(SECRET).toString('base64')), `${name} holds the secret in base64`);
    }
    assert.deepEqual(readdirSync(dir).sort(), ['objects-secrets.sealed', 'site.key']);
    assert.equal(statSync(join(dir, 'site.key')).size, 32);
    const again = new SealedStateFiles(dir, fakeTimers(), logger);
    assert.deepEqual(again.read('objects-secrets'), { items: [{ data: { password: Buffer.from(SECRET).toString('base64'), plain: SECRET } }] });
    assert.equal(again.read('pods'), undefined);
  });

  it('do not open under another site key, nor under another name', async () => {
    const dir = freshDir();
    const files = new SealedStateFiles(dir, fakeTimers(), logger);
    files.put('pods', () => ({ pods: [] }));
    await files.close();
    const sealed = readFileSync(join(dir, 'pods.sealed'));
    writeFileSync(join(dir, 'objects-secrets.sealed'), sealed);
    assert.equal(new SealedStateFiles(dir, fakeTimers(), logger).read('objects-secrets'), undefined, 'a file moved to another name opens');
    const other = freshDir();
    new SealedStateFiles(other, fakeTimers(), logger);
    writeFileSync(join(other, 'pods.sealed'), sealed);
    assert.equal(new SealedStateFiles(other, fakeTimers(), logger).read('pods'), undefined, 'a file of another site opens');
  });

  it('coalesce changes: one write per delay with the latest contents, none while nothing changes', async () => {
    const dir = freshDir();
    const timers = fakeTimers();
    const files = new SealedStateFiles(dir, timers, logger, 2000);
    let version = 0;
    for (let i = 0; i < 1000; i++) files.put('pods', () => ({ version: ++version }));
    assert.equal(files.writes, 0, 'written before the delay');
    timers.advance(1999);
    assert.equal(files.writes, 0);
    timers.advance(1);
    await files.flush();
    assert.equal(files.writes, 1);
    assert.deepEqual(new SealedStateFiles(dir, fakeTimers(), logger).read('pods'), { version: 1 }, 'the contents are taken once, when written');
    timers.advance(10_000);
    await files.flush();
    assert.equal(files.writes, 1, 'written again with nothing changed');
    files.put('pods', () => ({ version: 'latest' }));
    files.put('objects-services', () => ({ items: [] }));
    assert.deepEqual(timers.pending(), [2000]);
    timers.advance(2000);
    await files.flush();
    assert.equal(files.writes, 2, 'two documents changed in one delay are one write');
    assert.deepEqual(new SealedStateFiles(dir, fakeTimers(), logger).read('pods'), { version: 'latest' });
  });

  it('skip a document with nothing to write yet, keeping what the file had', async () => {
    const dir = freshDir();
    const files = new SealedStateFiles(dir, fakeTimers(), logger);
    files.put('pods', () => ({ pods: ['a'] }));
    await files.flush();
    files.put('pods', () => undefined);
    await files.close();
    assert.deepEqual(new SealedStateFiles(dir, fakeTimers(), logger).read('pods'), { pods: ['a'] });
  });
});
