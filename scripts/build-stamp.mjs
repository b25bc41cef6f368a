// What a build of dist/ was made from, and whether the sources changed since: shared by the
// build (scripts/build.mjs skips an up-to-date build) and the `edgeplane` command
// (bin/edgeplane.js says in one line that dist/ is older than the sources).
//
// The stamp (dist/build-stamp.json) lists every input file with its modification time and
// size as they were when the build started. A build is current when every listed file still
// has them and no file was added: one readdir per folder and one stat per file, no hashing,
// about 8 ms for the ~830 files of src/ on the project's 2-core machine. An edited, added,
// deleted or replaced file (even one whose copy carries an older time) counts as a change.
import { readdirSync, readFileSync, statSync } from 'node:fs';

export const STAMP_FILE = 'build-stamp.json';

/** What tsc compiles (tsconfig.json's include: the `*.ts` of these folders) and the single files the build depends on. */
export const BUILD_INPUTS = {
  dirs: ['src', 'test', 'bench', 'reliability'],
  files: ['tsconfig.json', 'package.json', 'scripts/build.mjs', 'scripts/build-stamp.mjs', 'scripts/fetch-k8s-openapi.mjs', 'scripts/fetch-gnostic-proto.mjs', 'scripts/fetch-k8s-proto.mjs'],
};
/** What the command checks: what dist/src/ is compiled from. Tests and benchmarks do not change the command. */
export const CLI_INPUTS = { dirs: ['src'], files: ['tsconfig.json'] };

/** `root` with one trailing slash, so paths are joined by concatenation (path.join costs more than the stat). */
const folder = (root) => (root.endsWith('/') ? root : `${root}/`);

function walk(root, dir, into) {
  let entries;
  try {
    entries = readdirSync(root + dir, { withFileTypes: true });
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

const inScope = (inputs) => (path) => inputs.files.includes(path) || inputs.dirs.some((d) => path.startsWith(`${d}/`));

/** The inputs of a build of `root` as they are now: path → [mtimeMs, size] (absent files left out). */
export function snapshotInputs(root, inputs = BUILD_INPUTS) {
  const base = folder(root);
  const files = {};
  for (const path of inputPaths(base, inputs)) {
    const stat = statSync(base + path, { throwIfNoEntry: false });
    if (stat !== undefined) files[path] = [stat.mtimeMs, stat.size];
  }
  return files;
}

/** The stamp of the build in `distDir`, or undefined when there is none (no build, or one made before stamps). */
export function readStamp(distDir) {
  try {
    return JSON.parse(readFileSync(`${folder(distDir)}${STAMP_FILE}`, 'utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The first input under `inputs` that differs from the stamp ("src/cli/main.ts changed",
 * "… is new", "… was removed"), or undefined when the build is current for them.
 */
export function firstChange(root, stamp, inputs = BUILD_INPUTS) {
  const base = folder(root);
  const recorded = stamp.files ?? {};
  let present = 0;
  for (const path of inputPaths(base, inputs)) {
    const was = recorded[path];
    const stat = statSync(base + path, { throwIfNoEntry: false });
    if (stat === undefined) {
      if (was !== undefined) return `${path} was removed`;
      continue;
    }
    if (was === undefined) return `${path} is new`;
    if (was[0] !== stat.mtimeMs || was[1] !== stat.size) return `${path} changed`;
    present++;
  }
  // Every file there is as recorded; the stamp has more of them only when some were removed.
  const scope = inScope(inputs);
  const expected = Object.keys(recorded).filter(scope);
  if (expected.length !== present) {
    const removed = expected.find((path) => statSync(base + path, { throwIfNoEntry: false }) === undefined);
    return `${removed ?? 'an input'} was removed`;
  }
  return undefined;
}
