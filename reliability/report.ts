import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import type { AreaReport, ReliabilityArea } from './area.js';

export interface AreaResult {
  readonly area: ReliabilityArea;
  readonly report: AreaReport;
  readonly seconds: number;
}

/** Where and when a run happened, written under each area it ran. */
export interface RunFacts {
  readonly startedAt: Date;
  readonly commit: string;
  readonly machine: string;
}

export function runFacts(startedAt: Date): RunFacts {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim() !== '';
    if (changed) commit += ' with uncommitted changes';
  } catch {
    // not a checkout
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  return { startedAt, commit, machine };
}

const HEADER = [
  '# Reliability evidence',
  '',
  'Written by `npm run reliability` (the long scale of each area; `npm run reliability -- <area>` refreshes one',
  'section and keeps the others). The short scale of every area runs in `npm test` (`reliability/*.test.ts`).',
  '',
].join('\n');

/** One area's section: its heading, when and where it ran, the verdict, the figures and any failures. */
export function renderAreaSection({ area, report, seconds }: AreaResult, facts: RunFacts): string {
  const lines = [
    `## ${area.name}`,
    '',
    `${area.description} — ${report.ok ? 'every property held' : '**FAILED**'} (${seconds.toFixed(0)} s; run ${facts.startedAt.toISOString()} at commit \`${facts.commit}\` on ${facts.machine}).`,
    '',
    ...report.markdown,
    '',
  ];
  if (!report.ok) lines.push('Failures:', '', ...report.failures.map((f) => `- ${f}`), '');
  return lines.join('\n');
}

/**
 * docs/RELIABILITY.md after a run (pure): the sections of the areas that ran replace theirs,
 * the others stay as the previous document had them, in the areas' order.
 */
export function mergeReliabilityDocument(previous: string | undefined, fresh: ReadonlyMap<string, string>, order: readonly string[]): string {
  const kept = new Map<string, string>();
  for (const part of (previous ?? '').split(/^(?=## )/m)) {
    const name = /^## (\S+)/.exec(part)?.[1];
    if (name !== undefined) kept.set(name, part.trimEnd() + '\n');
  }
  const sections = order.map((name) => fresh.get(name) ?? kept.get(name)).filter((s): s is string => s !== undefined);
  return [HEADER, ...sections.map((s) => s.trimEnd() + '\n')].join('\n');
}
