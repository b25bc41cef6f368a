#!/usr/bin/env node
// The `edgeplane` command. The TypeScript sources are compiled to dist/ by `npm ci`
// (the package's prepare script); run `npm run build` after editing them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
if (!existsSync(entry)) {
  console.error(`edgeplane: ${entry} is missing; run "npm ci" (or "npm run build") in the checkout first`);
  process.exit(1);
}
const { main } = await import(entry);
process.exitCode = await main(process.argv);
