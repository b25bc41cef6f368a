import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const DEPCRUISE = join(REPO, 'node_modules', '.bin', 'depcruise');
const CONFIG = join(REPO, '.dependency-cruiser.cjs');

/** Runs the project's dependency-cruiser rules over a tree of TypeScript files made for the test. */
async function cruise(files: Record<string, string>): Promise<{ code: number; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-layering-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src/**/*.ts'] }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return new Promise((resolve) => {
    execFile(DEPCRUISE, ['src', '--config', CONFIG], { cwd: dir }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
      resolve({ code, output: stdout + stderr });
    });
  });
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('lint: the layering rules of .dependency-cruiser.cjs', () => {
  it('pass a downward import (vk8s/ → registry/)', async () => {
    const result = await cruise({
      'src/registry/generic-store.ts': 'export const store = 1;\n',
      'src/vk8s/pods.ts': "import { store } from '../registry/generic-store.js';\nexport const pods = store;\n",
    });
    assert.equal(result.code, 0, result.output);
  });

  it('fail the generic registry importing a kind (registry/ → vk8s/), naming the rule', async () => {
    const result = await cruise({
      'src/registry/generic-store.ts': "import { pods } from '../vk8s/pods.js';\nexport const store = pods;\n",
      'src/vk8s/pods.ts': 'export const pods = 1;\n',
    });
    assert.notEqual(result.code, 0);
    assert.match(result.output, /registry-knows-no-kind/);
    assert.match(result.output, /layer-registry/);
  });

  it('fail the site agent importing the store', async () => {
    const result = await cruise({
      'src/store/types.ts': 'export const key = 1;\n',
      'src/site-agent/agent.ts': "import { key } from '../store/types.js';\nexport const agent = key;\n",
    });
    assert.notEqual(result.code, 0);
    assert.match(result.output, /site-agent-speaks-only-the-site-api/);
  });

  it('fail a module cycle inside one folder', async () => {
    const result = await cruise({
      'src/config/a.ts': "import { b } from './b.js';\nexport const a = (): number => b();\n",
      'src/config/b.ts': "import { a } from './a.js';\nexport const b = (): number => a();\n",
    });
    assert.notEqual(result.code, 0);
    assert.match(result.output, /no-circular/);
  });

  it('fail a folder that has no place in the layers', async () => {
    const result = await cruise({
      'src/common/clock.ts': 'export const now = 1;\n',
      'src/gadgets/thing.ts': "import { now } from '../common/clock.js';\nexport const thing = now;\n",
    });
    assert.notEqual(result.code, 0);
    assert.match(result.output, /no-unknown-folder/);
  });
});
