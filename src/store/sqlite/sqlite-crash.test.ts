import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { crashRound } from '../testing/crash-harness.js';
import { openSqliteStore } from './index.js';

describe('sqlite crash safety', () => {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-crash-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('a writer killed with SIGKILL 20 times never loses an acknowledged write', async () => {
    const path = join(dir, 'store.db');
    let revision = 0;
    for (let round = 0; round < 20; round++) {
      // The writer process embeds the database: killing it is the crash.
      const result = await crashRound({ backend: 'sqlite', path }, `/crash/r${round}/`, 1000 + round, revision, {
        crash: () => Promise.resolve(),
        reopen: () => Promise.resolve(openSqliteStore({ path })),
      });
      revision = result.revision;
    }
  });
});
