// Compiles the TypeScript sources to dist/ and records what was built (version, commit, date)
// in dist/build-info.json, which `/version` and `edgeplane version` report.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
rmSync('dist', { recursive: true, force: true });
try {
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { stdio: 'inherit' });
} catch {
  console.error('build failed: the TypeScript compiler reported the errors above');
  process.exit(1);
}

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}
execFileSync(process.execPath, ['scripts/fetch-k8s-openapi.mjs'], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/fetch-gnostic-proto.mjs'], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/fetch-k8s-proto.mjs'], { stdio: 'inherit' });
const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const commit = git(['rev-parse', 'HEAD']);
const dirty = commit !== '' && git(['status', '--porcelain', '--untracked-files=no']) !== '';
mkdirSync('dist', { recursive: true });
writeFileSync(
  'dist/build-info.json',
  JSON.stringify({
    version: pkg.version,
    gitCommit: commit || 'unknown',
    gitTreeState: commit === '' ? 'unknown' : dirty ? 'dirty' : 'clean',
    buildDate: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  }, null, 2) + '\n',
);
