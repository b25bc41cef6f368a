// Draws the layers of src/ from the code: dependency-cruiser reads the imports of production
// modules (tests and testing/ harnesses left out), collapses them to top-level folders, and
// this script ranks the folders (a folder sits one above the highest folder it imports) and
// writes a Mermaid diagram of the folder graph, transitively reduced so that each arrow is a
// direct dependency no other path already implies. The result replaces the text between
// `<!-- layers:begin -->` and `<!-- layers:end -->` in docs/ARCHITECTURE.md.
//
//   node scripts/layers.mjs           rewrite the diagram in docs/ARCHITECTURE.md
//   node scripts/layers.mjs --check   exit 1 when the diagram there is not the code's
//   node scripts/layers.mjs --print   print it
import { readFileSync, writeFileSync } from 'node:fs';
import { cruise } from 'dependency-cruiser';

const DOC = 'docs/ARCHITECTURE.md';
const BEGIN = '<!-- layers:begin -->';
const END = '<!-- layers:end -->';

const args = new Set(process.argv.slice(2));
if (args.has('--help') || args.has('-h')) {
  console.log('Usage: node scripts/layers.mjs [--check | --print]\n\nRegenerates the layer diagram of src/ in docs/ARCHITECTURE.md from the imports (dependency-cruiser).\n  --check  exit 1 when the diagram in docs/ARCHITECTURE.md differs from the code\n  --print  print the diagram instead of writing it');
  process.exit(0);
}

const result = await cruise(['src'], {
  includeOnly: '^src/',
  exclude: { path: '\\.test\\.ts$|/testing/' },
  collapse: '^src/[^/]+/',
  tsPreCompilationDeps: true,
  outputType: 'json',
});
const graph = typeof result.output === 'string' ? JSON.parse(result.output) : result.output;

const folderOf = (source) => source.replace(/^src\//, '').replace(/\/$/, '');
const edges = new Map();
for (const module of graph.modules) {
  const from = folderOf(module.source);
  edges.set(from, new Set(module.dependencies.map((d) => folderOf(d.resolved)).filter((to) => to !== from)));
}

const rank = new Map();
function rankOf(folder, path = []) {
  if (path.includes(folder)) throw new Error(`folder cycle: ${[...path, folder].join(' → ')}`);
  if (!rank.has(folder)) {
    const below = [...(edges.get(folder) ?? [])].map((to) => rankOf(to, [...path, folder]));
    rank.set(folder, below.length === 0 ? 0 : Math.max(...below) + 1);
  }
  return rank.get(folder);
}
for (const folder of edges.keys()) rankOf(folder);

function reaches(from, to, skipDirect) {
  const seen = new Set();
  const stack = [...(edges.get(from) ?? [])].filter((next) => !(skipDirect && next === to));
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === to) return true;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(edges.get(next) ?? []));
  }
  return false;
}

const folders = [...edges.keys()].sort((a, b) => rank.get(b) - rank.get(a) || a.localeCompare(b));
const id = (folder) => folder.replace(/-/g, '_');
const lines = ['```mermaid', 'flowchart TD'];
for (const folder of folders) lines.push(`  ${id(folder)}["${folder}/"]`);
for (const from of folders) {
  for (const to of [...edges.get(from)].sort()) if (!reaches(from, to, true)) lines.push(`  ${id(from)} --> ${id(to)}`);
}
lines.push('```', '', '| rank | folders (each imports only folders of lower rank) |', '|---|---|');
const maxRank = Math.max(...rank.values());
for (let r = maxRank; r >= 0; r -= 1) {
  lines.push(`| ${r} | ${folders.filter((f) => rank.get(f) === r).map((f) => `\`${f}/\``).join(', ')} |`);
}
const diagram = lines.join('\n');

if (args.has('--print')) {
  console.log(diagram);
  process.exit(0);
}
const doc = readFileSync(DOC, 'utf8');
const begin = doc.indexOf(BEGIN);
const end = doc.indexOf(END);
if (begin < 0 || end < begin) {
  console.error(`${DOC} has no ${BEGIN} … ${END} section for the layer diagram`);
  process.exit(1);
}
const updated = `${doc.slice(0, begin + BEGIN.length)}\n${diagram}\n${doc.slice(end)}`;
if (args.has('--check')) {
  if (updated !== doc) {
    console.error(`${DOC}: the layer diagram is not the code's; run "node scripts/layers.mjs" to redraw it`);
    process.exit(1);
  }
  process.exit(0);
}
writeFileSync(DOC, updated);
console.log(`${DOC}: layer diagram redrawn (${folders.length} folders, ranks 0–${maxRank})`);
