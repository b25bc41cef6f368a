import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import type { AreaReport, ReliabilityArea } from './area.js';

export interface AreaResult {
  readonly area: ReliabilityArea;
  readonly report: AreaReport;
  readonly seconds: number;
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/** docs/RELIABILITY.md: the machine, the commit, then each area's figures under its heading. */
export function renderReliabilityDocument(results: readonly AreaResult[], startedAt: Date): string {
  const lines = [
    '# Reliability evidence',
    '',
    'Written by `npm run reliability` (the long versions); short versions of every area run in `npm test`.',
    `Last run ${startedAt.toISOString()} at commit \`${commit()}\` on ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    '',
  ];
  for (const { area, report, seconds } of results) {
    lines.push(`## ${area.name}`, '', `${area.description} — ${report.ok ? 'every property held' : '**FAILED**'} (${seconds.toFixed(0)} s).`, '');
    lines.push(...report.markdown, '');
    if (!report.ok) lines.push('Failures:', '', ...report.failures.map((f) => `- ${f}`), '');
  }
  return lines.join('\n');
}
