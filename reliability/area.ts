/**
 * One area of `npm run reliability`: it runs at a scale — `short` inside `npm test`, `long`
 * for the figures recorded in docs/RELIABILITY.md — and reports what it found.
 */
export type Scale = 'short' | 'long';

export interface AreaReport {
  /** Whether every property the area checks held (a failed area fails the run and its test). */
  readonly ok: boolean;
  /** The figures, as Markdown lines (a table or bullet points), written under the area's heading. */
  readonly markdown: readonly string[];
  /** What broke, one line each, when `ok` is false. */
  readonly failures: readonly string[];
}

export interface ReliabilityArea {
  readonly name: string;
  /** One line: what is tried and what is counted. */
  readonly description: string;
  run(scale: Scale, progress: (line: string) => void): Promise<AreaReport>;
}
