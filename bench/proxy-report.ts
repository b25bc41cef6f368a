/** The Service proxy bench's table: each figure through the proxy next to the same load sent straight to the pod, with its goal (pure). */

export interface ProxyRow {
  readonly figure: string;
  readonly proxy: string;
  readonly direct: string;
  readonly ratio: string;
  readonly goal: string;
  /** `met`, `missed`, or '' for a figure without a goal. */
  readonly verdict: string;
}

/** A figure where more is better (throughput, rate): the proxy's share of direct against `goalShare` (0.8 = 80 %). */
export function shareRow(figure: string, proxy: { value: number; text: string }, direct: { value: number; text: string }, goalShare?: number): ProxyRow {
  const share = proxy.value / direct.value;
  return {
    figure,
    proxy: proxy.text,
    direct: direct.text,
    ratio: Number.isFinite(share) ? `${(share * 100).toFixed(0)} %` : 'n/a',
    goal: goalShare === undefined ? '' : `≥ ${(goalShare * 100).toFixed(0)} % of direct`,
    verdict: goalShare === undefined ? '' : Number.isFinite(share) && share >= goalShare ? 'met' : 'missed',
  };
}

const fmtMs = (ms: number): string => (ms < 1000 ? `${ms.toFixed(0)} ms` : `${(ms / 1000).toFixed(2)} s`);

/** A change → traffic time: p50/p99 of the samples (ms) against a p99 goal; no direct path to compare with. */
export function changeRow(figure: string, samples: readonly number[], goalP99Ms?: number): ProxyRow {
  const sorted = [...samples].sort((x, y) => x - y);
  const at = (p: number): number => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  const p99 = at(99);
  return {
    figure: `${figure} (${samples.length} trials)`,
    proxy: `p50 ${fmtMs(at(50))}, p99 ${fmtMs(p99)}`,
    direct: '—',
    ratio: '—',
    goal: goalP99Ms === undefined ? '' : `p99 ≤ ${fmtMs(goalP99Ms)}`,
    verdict: goalP99Ms === undefined ? '' : p99 <= goalP99Ms ? 'met' : 'missed',
  };
}

const HEADER: ProxyRow = { figure: 'figure', proxy: 'through the proxy', direct: 'direct to the pod IP (same run)', ratio: 'ratio', goal: 'goal', verdict: 'met/missed' };

/** The rows as a Markdown table, columns padded to their widest cell. */
export function proxyTable(rows: readonly ProxyRow[]): string {
  const keys = Object.keys(HEADER) as (keyof ProxyRow)[];
  const all = [HEADER, ...rows];
  const widths = keys.map((k) => Math.max(...all.map((r) => r[k].length)));
  const line = (r: ProxyRow): string => `| ${keys.map((k, i) => r[k].padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(HEADER), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
