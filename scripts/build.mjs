// Compiles the TypeScript sources to dist/ and records what was built (version, commit, date)
// in dist/build-info.json, which `/version` and `edgeplane version` report.
//
// Only `npm ci`/`npm install` (the package's postprepare script) and `npm run build` run it;
// the `edgeplane` command never builds (bin/edgeplane.js says when dist/ is stale).
//
// - Up to date: when no source changed since the last build (scripts/build-stamp.mjs), it
//   compiles nothing and says so; `--force` builds anyway. When only the commit or the
//   work tree's state changed, it rewrites build-info.json alone.
// - Atomic: each build is compiled into a folder of its own, `.dist-<id>/`, beside dist/, and
//   `dist` is a symbolic link to the current one, switched in one rename when the new build is
//   complete. A failed build leaves dist/ as it was. A server that is running keeps the build
//   it started from: Node resolves the link when it loads the modules, so the files it reads
//   later (lazy imports, the OpenAPI document, workers) come from that build's folder, which
//   the next build keeps as the previous one. Older builds are removed.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { BUILD_INPUTS, firstChange, readStamp, snapshotInputs, STAMP_FILE } from './build-stamp.mjs';

process.chdir(fileURLToPath(new URL('..', import.meta.url)));
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const force = process.argv.includes('--force');

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

function buildInfo() {
  const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
  const commit = git(['rev-parse', 'HEAD']);
  const dirty = commit !== '' && git(['status', '--porcelain', '--untracked-files=no']) !== '';
  return {
    version: pkg.version,
    gitCommit: commit || 'unknown',
    gitTreeState: commit === '' ? 'unknown' : dirty ? 'dirty' : 'clean',
    buildDate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  };
}

const writeJson = (path, value) => writeFileSync(path, JSON.stringify(value, null, 2) + '\n');

/** Replaces a file of the current build in one rename (a reader sees the old or the new one whole). */
function replaceFile(path, text) {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

// dist is a link to the current build (or, from builds before this script, a folder).
const current = (() => {
  try {
    return lstatSync('dist').isSymbolicLink() ? readlinkSync('dist') : existsSync('dist') ? 'dist' : undefined;
  } catch {
    return undefined;
  }
})();

if (!force && current !== undefined) {
  const stamp = readStamp('dist');
  const change = stamp === undefined ? 'dist/ has no build stamp' : firstChange('.', stamp, BUILD_INPUTS);
  if (change === undefined && existsSync('dist/src/cli/main.js')) {
    const info = JSON.parse(readFileSync('dist/build-info.json', 'utf8'));
    const now = buildInfo();
    if (info.gitCommit !== now.gitCommit || info.gitTreeState !== now.gitTreeState || info.version !== now.version) {
      replaceFile('dist/build-info.json', JSON.stringify({ ...now, buildDate: info.buildDate }, null, 2) + '\n');
      console.error(`dist/ is up to date (built ${info.buildDate}); build-info.json now names commit ${now.gitCommit.slice(0, 12)} (${now.gitTreeState})`);
    } else {
      console.error(`dist/ is up to date (built ${info.buildDate}, no source changed); "npm run build -- --force" rebuilds it`);
    }
    process.exit(0);
  }
}

// Remove what earlier failed or interrupted builds left (their process is gone).
for (const entry of readdirSync('.')) {
  const building = /^\.dist-building-(\d+)$/.exec(entry);
  if (building === null) continue;
  try {
    process.kill(Number(building[1]), 0);
  } catch {
    rmSync(entry, { recursive: true, force: true });
  }
}

const inputs = snapshotInputs('.', BUILD_INPUTS); // before compiling: an edit made meanwhile makes the next build run
const staging = `.dist-building-${process.pid}`;
rmSync(staging, { recursive: true, force: true });
const fail = (message) => {
  rmSync(staging, { recursive: true, force: true });
  console.error(message);
  process.exit(1);
};
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--outDir', staging], { stdio: 'inherit' });
} catch {
  fail('build failed: the TypeScript compiler reported the errors above; dist/ is unchanged');
}
try {
  for (const script of ['fetch-k8s-openapi.mjs', 'fetch-gnostic-proto.mjs', 'fetch-k8s-proto.mjs']) {
    execFileSync(process.execPath, [`scripts/${script}`, staging], { stdio: 'inherit' });
  }
} catch {
  fail('build failed: see the message above; dist/ is unchanged');
}
writeJson(`${staging}/build-info.json`, buildInfo());
writeJson(`${staging}/${STAMP_FILE}`, { files: inputs });

// Switch: the complete build gets its final name, then a new link replaces dist in one rename.
const id = `.dist-${new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${process.pid}`;
renameSync(staging, id);
const link = `.dist-link-${process.pid}`;
rmSync(link, { force: true });
symlinkSync(id, link, 'dir');
let previous = current;
if (current === 'dist') {
  // A dist/ folder from before builds were linked: keep it as the previous build.
  previous = `.dist-previous-${process.pid}`;
  renameSync('dist', previous);
}
renameSync(link, 'dist');

// Keep the new build and the one before it (a running server may still read it); remove older ones.
for (const entry of readdirSync('.')) {
  if (!/^\.dist-(?!building-|link-)/.test(entry) || entry === id || entry === previous) continue;
  rmSync(entry, { recursive: true, force: true });
}
console.error(`built dist/ (${id})`);
