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

  it('pass the CLI using the runc runtime through its face, and fail it reaching inside (face rule)', async () => {
    const runtime = {
      'src/site-agent/runtimes/runc/images/image-store.ts': 'export const store = 1;\n',
      'src/site-agent/runtimes/runc/images/index.ts': "export { store } from './image-store.js';\n",
      'src/site-agent/runtimes/runc/index.ts': "export { store } from './images/index.js';\n",
    };
    const throughFace = await cruise({ ...runtime, 'src/cli/image.ts': "import { store } from '../site-agent/runtimes/runc/index.js';\nexport const image = store;\n" });
    assert.equal(throughFace.code, 0, throughFace.output);
    const inside = await cruise({ ...runtime, 'src/cli/image.ts': "import { store } from '../site-agent/runtimes/runc/images/image-store.js';\nexport const image = store;\n" });
    assert.notEqual(inside.code, 0);
    assert.match(inside.output, /face-site-agent-runtimes-runc/);
  });

  it('fail a runc service importing one above it, or another one\'s internals', async () => {
    const services = {
      'src/site-agent/runtimes/runc/oci/spec.ts': 'export const spec = 1;\n',
      'src/site-agent/runtimes/runc/oci/index.ts': "export { spec } from './spec.js';\n",
      'src/site-agent/runtimes/runc/containers/bundle.ts': 'export const bundle = 1;\n',
      'src/site-agent/runtimes/runc/containers/index.ts': "export { bundle } from './bundle.js';\n",
    };
    const upward = await cruise({ ...services, 'src/site-agent/runtimes/runc/oci/uses.ts': "import { bundle } from '../containers/index.js';\nexport const uses = bundle;\n" });
    assert.notEqual(upward.code, 0);
    assert.match(upward.output, /runc-oci/);
    const internals = await cruise({ ...services, 'src/site-agent/runtimes/runc/containers/uses.ts': "import { spec } from '../oci/spec.js';\nexport const uses = spec;\n" });
    assert.notEqual(internals.code, 0);
    assert.match(internals.output, /runc-containers/);
    const fine = await cruise({ ...services, 'src/site-agent/runtimes/runc/containers/uses.ts': "import { spec } from '../oci/index.js';\nexport const uses = spec;\n" });
    assert.equal(fine.code, 0, fine.output);
  });
});
