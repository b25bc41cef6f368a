import { Counter, type Metric, type Registry } from 'prom-client';

/** One label set of a {@link CellCounter}: counting is a plain addition. */
export interface CounterCell {
  inc(by?: number): void;
}

/** One label set of a {@link CellHistogram}: an observation is a bucket search and three additions. */
export interface HistogramCell {
  observe(value: number): void;
}

interface MetricConfig<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
  readonly registers: readonly Registry[];
}

/** Only the metric's own labels: an object passed with more properties must not add labels to its series. */
const ownLabels = <L extends string>(labelNames: readonly L[], labels: Readonly<Record<L, string>>): Record<L, string> =>
  Object.fromEntries(labelNames.map((name) => [name, labels[name]])) as Record<L, string>;

const keyOf = <L extends string>(labelNames: readonly L[], labels: Readonly<Record<L, string>>): string => {
  let key = '';
  for (const name of labelNames) key += `${labels[name]}\u0000`;
  return key;
};

/**
 * A Prometheus counter for hot paths. prom-client validates and hashes the labels of every
 * `inc`; here a label set is found by one map lookup (or kept by its user as a
 * {@link CounterCell}) and counting adds to a number, which is handed to the underlying
 * prom-client counter when the registry is read (its collect hook). Same exposition.
 */
export class CellCounter<L extends string> {
  private readonly cells = new Map<string, { readonly labels: Record<L, string>; pending: number; inc(by?: number): void }>();

  constructor(private readonly config: MetricConfig<L>) {
    const cells = this.cells;
    new Counter<L>({
      name: config.name,
      help: config.help,
      labelNames: config.labelNames,
      registers: [...config.registers],
      collect() {
        for (const cell of cells.values()) {
          if (cell.pending === 0) continue;
          this.inc(cell.labels, cell.pending);
          cell.pending = 0;
        }
      },
    });
  }

  cell(labels: Readonly<Record<L, string>>): CounterCell {
    const key = keyOf(this.config.labelNames, labels);
    let cell = this.cells.get(key);
    if (cell === undefined) {
      const created = {
        labels: ownLabels(this.config.labelNames, labels),
        pending: 0,
        inc(by = 1): void {
          created.pending += by;
        },
      };
      cell = created;
      this.cells.set(key, cell);
    }
    return cell;
  }

  inc(labels: Readonly<Record<L, string>>, by = 1): void {
    this.cell(labels).inc(by);
  }
}

interface HistogramValue {
  readonly value: number;
  readonly labels: Readonly<Record<string, string | number>>;
  readonly sharedLabels?: Readonly<Record<string, string>>;
  readonly metricName: string;
}

interface HistogramData {
  readonly name: string;
  readonly help: string;
  readonly type: string;
  readonly aggregator: string;
  readonly values: readonly HistogramValue[];
}

class Cell<L extends string> implements HistogramCell {
  /** Observations per bucket (not cumulative); the last is above every bound. */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly labels: Readonly<Record<L, string>>,
    private readonly bounds: readonly number[],
  ) {
    this.counts = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    let i = 0;
    while (i < this.bounds.length && value > (this.bounds[i] ?? 0)) i++;
    this.counts[i] = (this.counts[i] ?? 0) + 1;
    this.sum += value;
    this.count++;
  }
}

/**
 * A Prometheus histogram for hot paths, registered in a prom-client registry and exposed as
 * prom-client's Histogram is (`_bucket` with `le`, `_sum`, `_count`); an observation costs a
 * map lookup (none when the caller keeps the {@link HistogramCell}) and a bucket search,
 * without prom-client's per-call label validation and hashing.
 */
export class CellHistogram<L extends string> {
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  private readonly cells = new Map<string, Cell<L>>();
  private readonly bounds: readonly number[];

  constructor(private readonly config: MetricConfig<L> & { readonly buckets: readonly number[] }) {
    this.bounds = [...config.buckets].sort((a, b) => a - b);
    // The registry reads any object with a name and get(); prom-client's types list only its own classes.
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  get name(): string {
    return this.config.name;
  }

  get help(): string {
    return this.config.help;
  }

  cell(labels: Readonly<Record<L, string>>): HistogramCell {
    const key = keyOf(this.config.labelNames, labels);
    let cell = this.cells.get(key);
    if (cell === undefined) {
      cell = new Cell(ownLabels(this.config.labelNames, labels), this.bounds);
      this.cells.set(key, cell);
    }
    return cell;
  }

  observe(labels: Readonly<Record<L, string>>, value: number): void {
    this.cell(labels).observe(value);
  }

  /** Starts a timer; the returned function observes the seconds since (performance.now). */
  startTimer(labels: Readonly<Record<L, string>>): () => number {
    const cell = this.cell(labels);
    const start = performance.now();
    return () => {
      const seconds = (performance.now() - start) / 1000;
      cell.observe(seconds);
      return seconds;
    };
  }

  reset(): void {
    this.cells.clear();
  }

  /** What the registry renders (prom-client's Histogram shape: each series' labels shared by its `le` buckets). */
  getForPromString(): Promise<HistogramData> {
    const values: HistogramValue[] = [];
    for (const cell of this.cells.values()) {
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += cell.counts[i] ?? 0;
        values.push({ labels: { le: bound }, sharedLabels: cell.labels, value: cumulative, metricName: `${this.name}_bucket` });
      });
      values.push(
        { labels: { le: '+Inf' }, sharedLabels: cell.labels, value: cell.count, metricName: `${this.name}_bucket` },
        { labels: {}, sharedLabels: cell.labels, value: cell.sum, metricName: `${this.name}_sum` },
        { labels: {}, sharedLabels: cell.labels, value: cell.count, metricName: `${this.name}_count` },
      );
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  /** prom-client's metric object (labels and shared labels merged), as `Registry.getMetricsAsJSON` reads it. */
  async get(): Promise<HistogramData> {
    const data = await this.getForPromString();
    return { ...data, values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({ labels: { ...labels, ...sharedLabels }, value, metricName })) };
  }
}
