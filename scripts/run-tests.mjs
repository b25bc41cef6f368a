// Runs every compiled test file (dist/**/*.test.js) with node's built-in test runner.
// Unit tests sit beside the code in src/, scenarios in test/e2e/. Arguments narrow the run
// to files whose path contains one of them: `node scripts/run-tests.mjs store/sqlite`.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return find(path);
    return entry.name.endsWith('.test.js') ? [path] : [];
  });
}

const filters = process.argv.slice(2);
const files = find('dist').filter((f) => filters.length === 0 || filters.some((x) => f.includes(x))).sort();
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ') || 'dist/**/*.test.js'}; run "npm run build" first`);
  process.exit(1);
}
// The programs a runc site runs are found on PATH, as on a site: the provisioned ones first
// (.tools/bin, written by scripts/provision-tools.mjs), for in-process agents and the servers
// and agents the tests start.
const PATH = `${join(process.cwd(), '.tools', 'bin')}${delimiter}${process.env.PATH ?? ''}`;
const result = spawnSync(
  process.execPath,
  ['--enable-source-maps', '--test', '--test-concurrency=2', '--test-timeout=300000', ...files],
  { stdio: 'inherit', env: { ...process.env, PATH } },
);
process.exit(result.status ?? 1);
