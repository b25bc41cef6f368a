import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { after, describe, it } from 'node:test';
import { createLogger } from '../observability/logger.js';
import type { SidecarState } from './sidecar-state.js';
import { StateFile, stateRecordOf } from './state-file.js';
import { startReaderThread } from './testing/reader-thread.js';

const root = mkdtempSync(join(tmpdir(), 'sidecar-state-file-'));
after(() => rmSync(root, { recursive: true, force: true }));

const T0 = Date.parse('2026-01-02T03:04:05.000Z');
const identity = { notBefore: T0, notAfter: T0 + 3_600_000 };
const initializing: SidecarState = { kind: 'INITIALIZING', since: T0, failures: 0 };
const ready: SidecarState = { kind: 'READY', identity, issuedAt: T0 + 1000, inExpiryWindow: false, failures: 0 };
const degraded: SidecarState = { kind: 'DEGRADED', identity, issuedAt: T0 + 1000, failures: 2, lastFailureAt: T0 + 3000, lastError: 'POST https://cp/renew failed: ECONNREFUSED' };
const haltedBudget: SidecarState = { kind: 'HALTED', since: T0 + 5000, reason: 'RETRY_BUDGET_EXHAUSTED', lastError: 'POST https://cp/certificates answered 401: Unauthorized: bad token' };
const haltedExpired: SidecarState = { kind: 'HALTED', since: T0 + 5000, reason: 'IDENTITY_EXPIRED' };

function logTo(lines: string[]) {
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  return createLogger({ level: 'debug', destination: stream });
}

const read = (path: string): unknown => JSON.parse(readFileSync(path, 'utf8'));

describe('sidecar state file', () => {
  it('state record: the word, since when the word began, and the reason of DEGRADED and HALTED', () => {
    const first = stateRecordOf(initializing, undefined, T0);
    assert.deepEqual(first, { state: 'INITIALIZING', since: '2026-01-02T03:04:05.000Z' });
    const up = stateRecordOf(ready, first, T0 + 1000);
    assert.deepEqual(up, { state: 'READY', since: '2026-01-02T03:04:06.000Z' });
    assert.deepEqual(stateRecordOf({ ...ready, issuedAt: T0 + 9000 }, up, T0 + 9000), up, 'a renewal keeps READY and its since');
    const down = stateRecordOf(degraded, up, T0 + 3000);
    assert.deepEqual(down, { state: 'DEGRADED', since: '2026-01-02T03:04:08.000Z', reason: 'POST https://cp/renew failed: ECONNREFUSED' });
    assert.deepEqual(stateRecordOf({ ...degraded, lastError: 'timed out' }, down, T0 + 4000), { ...down, reason: 'timed out' }, 'a new error changes the reason, not since');
    assert.deepEqual(stateRecordOf(haltedBudget, first, T0 + 5000), {
      state: 'HALTED',
      since: '2026-01-02T03:04:10.000Z',
      reason: 'RETRY_BUDGET_EXHAUSTED: POST https://cp/certificates answered 401: Unauthorized: bad token',
    });
    assert.deepEqual(stateRecordOf(haltedExpired, up, T0 + 5000).reason, 'IDENTITY_EXPIRED');
  });

  it('state file is written on every change, mode 0600 whatever the umask, in a folder it makes, with no temporary file left', async () => {
    const path = join(root, 'made', 'sub', 'state.json');
    const file = new StateFile(path, logTo([]));
    const umask = process.umask(0);
    try {
      file.update(initializing, T0);
      await file.flushed();
      assert.deepEqual(read(path), { state: 'INITIALIZING', since: '2026-01-02T03:04:05.000Z' });
      assert.equal(statSync(path).mode & 0o777, 0o600);
      file.update(ready, T0 + 1000);
      await file.flushed();
      assert.deepEqual(read(path), { state: 'READY', since: '2026-01-02T03:04:06.000Z' });
      file.update(haltedBudget, T0 + 5000);
      await file.flushed();
    } finally {
      process.umask(umask);
    }
    assert.deepEqual(read(path), { state: 'HALTED', since: '2026-01-02T03:04:10.000Z', reason: 'RETRY_BUDGET_EXHAUSTED: POST https://cp/certificates answered 401: Unauthorized: bad token' });
    assert.equal(readFileSync(path, 'utf8').split('\n').length, 2, 'one JSON line');
    assert.equal(statSync(path).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(root, 'made', 'sub')), ['state.json']);
  });

  it('state file: updates during a write collapse into the latest', async () => {
    const path = join(root, 'collapse.json');
    const file = new StateFile(path, logTo([]));
    for (let i = 0; i < 50; i++) file.update(i % 2 === 0 ? ready : degraded, T0 + i);
    file.update(haltedExpired, T0 + 100);
    await file.flushed();
    assert.deepEqual(read(path), { state: 'HALTED', since: new Date(T0 + 100).toISOString(), reason: 'IDENTITY_EXPIRED' });
  });

  it('state file is never seen half-written by a concurrent reader', async () => {
    const path = join(root, 'atomic.json');
    // Two records of very different sizes, so a partial or truncated read cannot look whole.
    const long: SidecarState = { ...degraded, lastError: 'x'.repeat(20_000) };
    const file = new StateFile(path, logTo([]));
    file.update(ready, T0);
    await file.flushed();
    const versions = [readFileSync(path, 'utf8')];
    const reader = await startReaderThread(path);
    for (let i = 0; i < 20; i++) {
      file.update(i % 2 === 0 ? long : ready, T0 + i);
      await file.flushed();
      versions.push(readFileSync(path, 'utf8'));
    }
    const seen = await reader.stop();
    const expected = new Set(versions.map((text) => createHash('sha256').update(text).digest('hex')));
    assert.deepEqual(seen.filter(([digest]) => !expected.has(digest)), [], 'every read is one whole record');
    assert.ok(seen.length >= 2, 'the reader saw several records, so it did read while the file was replaced');
  });

  it('state file that cannot be written is logged, the sidecar carries on, and the next change writes it', async () => {
    const blocker = join(root, 'blocker');
    writeFileSync(blocker, 'a file where a folder should be');
    const lines: string[] = [];
    const file = new StateFile(join(blocker, 'state.json'), logTo(lines));
    file.update(initializing, T0);
    await file.flushed();
    assert.equal(lines.filter((line) => line.includes('cannot write the state file')).length, 1);
    rmSync(blocker);
    file.update(ready, T0 + 1000);
    await file.flushed();
    assert.deepEqual(read(join(blocker, 'state.json')), { state: 'READY', since: '2026-01-02T03:04:06.000Z' });
  });
});
