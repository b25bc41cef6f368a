import { stringify } from 'yaml';

export type OutputFormat = 'json' | 'yaml' | 'table';

/** Pure: columns padded to their widest cell, like kubectl's tables. */
export function renderTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd((widths[i] ?? 0) + 3))).join('').trimEnd();
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

export function render(value: unknown, format: 'json' | 'yaml'): string {
  return format === 'json' ? JSON.stringify(value, null, 2) + '\n' : stringify(value);
}

/** "3d", "5h", "12m", "40s" since the timestamp, as kubectl's AGE column. */
export function age(timestamp: string | undefined, now = Date.now()): string {
  if (timestamp === undefined) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now - Date.parse(timestamp)) / 1000));
  if (seconds < 120) return `${seconds}s`;
  if (seconds < 7200) return `${Math.floor(seconds / 60)}m`;
  if (seconds < 172800) return `${Math.floor(seconds / 3600)}h`;
  return `${Math.floor(seconds / 86400)}d`;
}
