import { wantsColor } from '../observability/pretty-log.js';

/**
 * What `edgeplane server` shows a person while it starts, on stderr when that is a terminal:
 * one line as each step begins (`… starting the control plane`) and one when it is done
 * (`✓ control plane https://127.0.0.1:6443 (0.9 s)`). Elsewhere (a pipe, a service manager)
 * it prints nothing: the JSON log says the same.
 */
export class StartProgress {
  private readonly started = Date.now();

  constructor(
    private readonly out: NodeJS.WritableStream & { isTTY?: boolean } = process.stderr,
    readonly enabled: boolean = out.isTTY === true,
  ) {}

  /** Announces a step; the returned function marks it done with what it produced. */
  step(label: string): (result: string) => void {
    const since = Date.now();
    this.write(`… ${label}`);
    const bold = (text: string): string => (wantsColor(this.out) ? `\u001b[1m${text}\u001b[0m` : text);
    return (result) => this.write(`${bold(`✓ ${result}`)} (${((Date.now() - since) / 1000).toFixed(1)} s)`);
  }

  /** Seconds since the start began. */
  elapsedSeconds(): string {
    return ((Date.now() - this.started) / 1000).toFixed(1);
  }

  private write(line: string): void {
    if (this.enabled) this.out.write(`${line}\n`);
  }
}

/** Quotes a path for a POSIX shell when it needs it. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
