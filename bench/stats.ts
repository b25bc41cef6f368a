/** Small helpers shared by the benchmarks: timing, percentiles, concurrency, the table. */

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return Number.NaN;
  const index = Math.min(sortedMs.length - 1, Math.ceil((p / 100) * sortedMs.length) - 1);
  return sortedMs[Math.max(0, index)] as number;
}

export function latencySummary(samplesMs: number[]): { p50: number; p99: number } {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
}

/** Runs `op(i)` for i in [0, total) with at most `concurrency` in flight; resolves to ops per second. */
export async function rate(total: number, concurrency: number, op: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: Math.min(concurrency, total) }, async () => {
      while (next < total) await op(next++);
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return total / seconds;
}

export function nowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** CPU this process uses while `work` runs (user + system) and the time it takes, in seconds, with the work's result. */
export async function withCpu<T>(work: () => Promise<T>): Promise<{ result: T; cpuSeconds: number; wallSeconds: number }> {
  const before = process.cpuUsage();
  const started = nowMs();
  const result = await work();
  const used = process.cpuUsage(before);
  return { result, cpuSeconds: (used.user + used.system) / 1e6, wallSeconds: (nowMs() - started) / 1000 };
}

export interface Row {
  readonly area: string;
  readonly measure: string;
  readonly value: string;
  readonly baseline: string;
  readonly ratio: string;
}

export function printTable(title: string, rows: readonly Row[]): void {
  const header: Row = { area: 'backend', measure: 'measure', value: 'edgeplane', baseline: 'baseline (same run)', ratio: 'ratio' };
  const all = [header, ...rows];
  const widths = (Object.keys(header) as (keyof Row)[]).map((k) => Math.max(...all.map((r) => r[k].length)));
  const line = (r: Row): string =>
    '| ' + (Object.keys(header) as (keyof Row)[]).map((k, i) => r[k].padEnd(widths[i] as number)).join(' | ') + ' |';
  console.log(`\n${title}\n`);
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
}

export const fmtRate = (r: number): string => `${Math.round(r).toLocaleString('en-US')}/s`;
export const fmtMs = (ms: number): string => `${ms < 1 ? ms.toFixed(3) : ms.toFixed(2)} ms`;

/** Progress on stderr, so the table on stdout stays clean. */
export function progress(message: string): void {
  process.stderr.write(`… ${message}\n`);
}
