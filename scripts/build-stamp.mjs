// What a build of dist/ was made from, and whether the sources changed since: shared by the
// build (scripts/build.mjs skips an up-to-date build) and the `edgeplane` command
// (bin/edgeplane.js says in one line that dist/ is older than the sources).
//
// The stamp (dist/build-stamp.json) lists every input file with its modification time and
// size as they were when the build started. A build is current when every listed file still
// has them and no file was added: one stat per file, a few milliseconds for the ~900 files,
// and no hashing. An edited, added, deleted, or replaced file (even one whose copy carries an
// older time) counts as a change. The command uses the asynchronous variant, which runs on
// libuv's thread pool while the main thread loads the CLI's modules, so it costs the start
// next to nothing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

export const STAMP_FILE = 'build-stamp.json';

/** Folders whose `*.ts` files tsc compiles (tsconfig.json's include), and single input files. */
const SOURCE_DIRS = ['src', 'test', 'bench'];
const SOURCE_FILES = ['tsconfig.json', 'package.json', 'scripts/build.mjs', 'scripts/build-stamp.mjs', 'scripts/fetch-k8s-openapi.mjs', 'scripts/fetch-gnostic-proto.mjs', 'scripts/fetch-k8s-proto.mjs'];
/** What the CLI checks: what dist/src/ is compiled from. Tests and benchmarks do not change the command. */
export const CLI_INPUTS = { dirs: ['src'], files: ['tsconfig.json'] };
export const BUILD_INPUTS = { dirs: SOURCE_DIRS, files: SOURCE_FILES };

const signature = (stat) => `${stat.mtimeMs}:${stat.size}`;

function walk(root, dir, into) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return; // a folder that is not there has no inputs
  }
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(root, path, into);
    else if (entry.name.endsWith('.ts')) into.push(path);
  }
}

function inputPaths(root, inputs) {
  const paths = [];
  for (const dir of inputs.dirs) walk(root, dir, paths);
  return paths.concat(inputs.files);
}

/** The inputs of a build of `root` as they are now: path → "mtimeMs:size" (absent files left out). */
export function snapshotInputs(root, inputs = BUILD_INPUTS) {
  const files = {};
  for (const path of inputPaths(root, inputs)) {
    try {
      files[path] = signature(statSync(join(root, path)));
    } catch {
      // not there (an optional single file)
    }
  }
  return files;
}

/** The stamp of the build in `distDir`, or undefined when there is none (no build, or one made before stamps). */
export function readStamp(distDir) {
  try {
    return JSON.parse(readFileSync(join(distDir, STAMP_FILE), 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The first input under `inputs` that differs from the stamp ("src/cli/main.ts changed",
 * "… is new", "… was removed"), or undefined when the build is current for them.
 */
export function firstChange(root, stamp, inputs = BUILD_INPUTS) {
  const recorded = stamp.files ?? {};
  const inScope = (path) => inputs.files.includes(path) || inputs.dirs.some((d) => path.startsWith(`${d}/`));
  const seen = new Set();
  for (const path of inputPaths(root, inputs)) {
    let now;
    try {
      now = signature(statSync(join(root, path)));
    } catch {
      if (path in recorded) return `${path} was removed`;
      continue;
    }
    seen.add(path);
    if (!(path in recorded)) return `${path} is new`;
    if (recorded[path] !== now) return `${path} changed`;
  }
  for (const path of Object.keys(recorded)) {
    if (inScope(path) && !seen.has(path)) return `${path} was removed`;
  }
  return undefined;
}

async function walkAsync(root, dir) {
  let entries;
  try {
    entries = await readdir(join(root, dir), { withFileTypes: true });
  } catch {
    return [];
  }
  const nested = await Promise.all(
    entries.map((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return walkAsync(root, path);
      return entry.name.endsWith('.ts') ? [path] : [];
    }),
  );
  return nested.flat();
}

/** `firstChange` without blocking: the folders are read and the files stated concurrently. */
export async function firstChangeAsync(root, stamp, inputs = BUILD_INPUTS) {
  const recorded = stamp.files ?? {};
  const inScope = (path) => inputs.files.includes(path) || inputs.dirs.some((d) => path.startsWith(`${d}/`));
  const paths = (await Promise.all(inputs.dirs.map((dir) => walkAsync(root, dir)))).flat().concat(inputs.files);
  const now = await Promise.all(paths.map((path) => stat(join(root, path)).then(signature, () => undefined)));
  const seen = new Set();
  for (const [i, path] of paths.entries()) {
    if (now[i] === undefined) {
      if (path in recorded) return `${path} was removed`;
      continue;
    }
    seen.add(path);
    if (!(path in recorded)) return `${path} is new`;
    if (recorded[path] !== now[i]) return `${path} changed`;
  }
  for (const path of Object.keys(recorded)) {
    if (inScope(path) && !seen.has(path)) return `${path} was removed`;
  }
  return undefined;
}
