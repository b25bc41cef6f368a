/**
 * `npm run reliability [-- <area>...]`: the long versions of the reliability areas — crashes,
 * fuzz, abusive clients, isolation, secrets at rest, autonomy — with their figures written into
 * docs/RELIABILITY.md. Short versions of the same areas run inside `npm test`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { abusiveClients } from './abusive-clients.js';
import type { ReliabilityArea, Scale } from './area.js';
import { autonomyArea } from './autonomy.js';
import { crashes } from './crashes.js';
import { fuzzArea } from './fuzz.js';
import { isolationArea } from './isolation.js';
import { type AreaResult, mergeReliabilityDocument, renderAreaSection, runFacts } from './report.js';
import { secretsAtRestArea } from './secrets-at-rest.js';

const DOCUMENT = 'docs/RELIABILITY.md';
const areas: readonly ReliabilityArea[] = [crashes, fuzzArea, abusiveClients, isolationArea, secretsAtRestArea, autonomyArea];

function usage(): string {
  return [
    'Usage: npm run reliability [-- [--short] [--no-write] [area...]]',
    '',
    'Runs every area (or the named ones) at the long scale and writes their sections of docs/RELIABILITY.md.',
    '  --short      the scale npm test uses (quick; nothing written unless --write)',
    '  --no-write   print the figures only',
    '',
    'Areas:',
    ...areas.map((a) => `  ${a.name.padEnd(18)} ${a.description}`),
  ].join('\n');
}

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(usage());
  process.exit(0);
}
const scale: Scale = args.includes('--short') ? 'short' : 'long';
const write = args.includes('--write') || (scale === 'long' && !args.includes('--no-write'));
const names = args.filter((a) => !a.startsWith('--'));
const unknown = names.filter((n) => !areas.some((a) => a.name === n));
if (unknown.length > 0) {
  console.error(`unknown area ${unknown.join(', ')}\n\n${usage()}`);
  process.exit(2);
}
const chosen = names.length === 0 ? areas : areas.filter((a) => names.includes(a.name));
const startedAt = new Date();
const results: AreaResult[] = [];
for (const area of chosen) {
  console.log(`\n== ${area.name} (${scale}): ${area.description}`);
  const started = performance.now();
  const report = await area.run(scale, (line) => console.log(`   ${area.name}: ${line}`));
  const seconds = (performance.now() - started) / 1000;
  results.push({ area, report, seconds });
  console.log(report.markdown.join('\n'));
  for (const failure of report.failures) console.log(`   FAILED: ${failure}`);
}
if (write) {
  const facts = runFacts(startedAt);
  const fresh = new Map(results.map((result) => [result.area.name, renderAreaSection(result, facts)]));
  let previous: string | undefined;
  try {
    previous = readFileSync(DOCUMENT, 'utf8');
  } catch {
    previous = undefined;
  }
  writeFileSync(DOCUMENT, mergeReliabilityDocument(previous, fresh, areas.map((a) => a.name)));
  console.log(`\nwrote ${DOCUMENT} (${results.map((r) => r.area.name).join(', ')})`);
}
process.exit(results.every((r) => r.report.ok) ? 0 : 1);
