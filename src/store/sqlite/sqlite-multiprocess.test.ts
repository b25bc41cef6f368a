import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';
import { takeEvents } from '../testing/watch-helpers.js';
import { openSqliteStore } from './index.js';

const WRITER = fileURLToPath(new URL('../testing/crash-writer.js', import.meta.url));

describe('sqlite shared by two processes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-shared-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a watcher in this process sees, in order, the writes another process makes to the same file', async () => {
    const path = join(dir, 'store.db');
    const store = openSqliteStore({ path });
    const from = await store.create('/shared/local', 'mine');
    const iterator = store.watch('/shared/', { fromRevision: from.modRevision })[Symbol.asyncIterator]();
    const child = spawn(process.execPath, [WRITER, JSON.stringify({ backend: 'sqlite', path }), '/shared/remote/'], { stdio: 'ignore' });
    try {
      const events = await takeEvents(iterator, 50, 20_000);
      const revisions = events.map((e) => e.revision);
      assert.ok(events.every((e) => e.key.startsWith('/shared/remote/')));
      for (let i = 1; i < revisions.length; i++) assert.ok((revisions[i] as number) > (revisions[i - 1] as number));
      assert.ok((revisions[0] as number) > from.modRevision);
      // Writes from both processes interleave in one revision sequence.
      const mine = await store.create('/shared/local-2', 'mine');
      assert.ok(mine.modRevision > (revisions[0] as number));
    } finally {
      child.kill('SIGKILL');
      await iterator.return?.();
      await store.close();
    }
  });
});
