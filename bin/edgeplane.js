#!/usr/bin/env node
// The `edgeplane` command. It runs the build in dist/ and never builds: `npm ci` (the
// package's postprepare script) and `npm run build` do. When dist/ is missing it says how to
// build and exits; when the sources changed since dist/ was built it says so in one line on
// stderr and runs the build that is there.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const entry = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
if (!existsSync(entry)) {
  console.error(`edgeplane: there is no build in ${dist}; run "npm ci" (or "npm run build") in ${root}`);
  process.exit(1);
}

// Checked only in a checkout (a copy of dist/ without src/ runs as it is): one stat per source
// file, ~8 ms (scripts/build-stamp.mjs).
if (existsSync(new URL('../src/', import.meta.url))) {
  const { CLI_INPUTS, firstChange, readStamp } = await import('../scripts/build-stamp.mjs');
  const stamp = readStamp(dist);
  const change = stamp === undefined ? 'the build has no stamp' : firstChange(root, stamp, CLI_INPUTS);
  if (change !== undefined) console.error(`edgeplane: dist/ is older than the sources (${change}); run "npm run build" in ${root} to use them`);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv);
