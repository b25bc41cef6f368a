import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreConformance } from '../testing/conformance.js';
import { openSqliteStore } from './index.js';

const dir = mkdtempSync(join(tmpdir(), 'edgeplane-sqlite-'));

describeStoreConformance('sqlite', {
  open: () => Promise.resolve(openSqliteStore({ path: join(dir, 'store.db') })),
  tearDown: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
});
