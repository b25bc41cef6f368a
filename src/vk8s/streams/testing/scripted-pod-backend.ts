import { connect } from 'node:net';
import { PassThrough, type Duplex, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { AttachOptions, ExecOptions, ExitResult, LogOptions, PodStreamBackend, PodTarget, StreamIo } from '../types.js';

/**
 * A pretend container for protocol tests. exec understands a few commands:
 * `echo ARGS…` (stdout), `warn ARGS…` (stderr), `cat` (stdin to stdout), `exit N`,
 * `bytes N` (N bytes of "x" on stdout), `size` (waits for a terminal size, prints `WxH`),
 * `sleep` (until the client goes away); anything else fails like a missing executable.
 * attach echoes stdin. port-forward connects to `127.0.0.1:<ports[port]>`. Logs are `lines`;
 * a following reader also gets what the test `appendLog`s while it reads. Calls are recorded.
 */
export class ScriptedPodBackend implements PodStreamBackend {
  readonly calls: Array<{ readonly kind: string; readonly target: PodTarget; readonly detail: unknown }> = [];
  private readonly followers = new Set<PassThrough>();
  /** `sleep` commands that ended because their client went away. */
  abandonedSleeps = 0;

  constructor(
    private readonly ports: Readonly<Record<number, number>> = {},
    private readonly lines: readonly string[] = [],
  ) {}

  async exec(target: PodTarget, options: ExecOptions, io: StreamIo): Promise<ExitResult> {
    this.calls.push({ kind: 'exec', target, detail: options });
    const [program, ...args] = options.command;
    switch (program) {
      case 'echo':
        io.stdout?.write(`${args.join(' ')}\n`);
        return { exitCode: 0 };
      case 'warn':
        io.stderr?.write(`${args.join(' ')}\n`);
        return { exitCode: 0 };
      case 'cat':
        if (io.stdin !== undefined && io.stdout !== undefined) {
          io.stdin.pipe(io.stdout, { end: false });
          await finished(io.stdin).catch(() => undefined);
        }
        return { exitCode: 0 };
      case 'exit':
        return { exitCode: Number(args[0] ?? 1) };
      case 'bytes':
        io.stdout?.write(Buffer.alloc(Number(args[0] ?? 0), 'x'));
        return { exitCode: 0 };
      case 'size':
        for await (const size of io.resize ?? []) {
          io.stdout?.write(`${size.width}x${size.height}\n`);
          break;
        }
        return { exitCode: 0 };
      case 'sleep':
        await new Promise((resolve) => io.signal.addEventListener('abort', resolve));
        this.abandonedSleeps++;
        return { exitCode: 0 };
      default:
        throw new Error(`exec: "${program ?? ''}": executable file not found in $PATH`);
    }
  }

  async attach(target: PodTarget, options: AttachOptions, io: StreamIo): Promise<ExitResult> {
    this.calls.push({ kind: 'attach', target, detail: options });
    if (io.stdin !== undefined && io.stdout !== undefined) {
      io.stdin.pipe(io.stdout, { end: false });
      await finished(io.stdin).catch(() => undefined);
    }
    return { exitCode: 0 };
  }

  portForward(target: PodTarget, port: number): Promise<Duplex> {
    this.calls.push({ kind: 'portforward', target, detail: port });
    const local = this.ports[port];
    if (local === undefined) return Promise.reject(new Error(`dial tcp4 127.0.0.1:${port}: connect: connection refused`));
    return new Promise((resolve, reject) => {
      const socket = connect(local, '127.0.0.1', () => resolve(socket));
      socket.once('error', reject);
    });
  }

  logs(target: PodTarget, options: LogOptions): Promise<Readable> {
    this.calls.push({ kind: 'logs', target, detail: options });
    const lines = options.tailLines === undefined ? this.lines : this.lines.slice(Math.max(0, this.lines.length - options.tailLines));
    const out = new PassThrough();
    for (const line of lines) out.write(`${options.timestamps ? '2020-01-01T00:00:00.000000000Z ' : ''}${line}\n`);
    if (options.follow) {
      this.followers.add(out);
      out.once('close', () => this.followers.delete(out));
    } else {
      out.end();
    }
    return Promise.resolve(out);
  }

  /** Writes to every following log reader. */
  appendLog(text: string): void {
    for (const out of this.followers) out.write(text);
  }

  /** Ends every following log (the container stopped). */
  endLogs(): void {
    for (const out of this.followers) out.end();
  }

  /** How many readers follow the log now (a reader that went away is not counted). */
  followerCount(): number {
    return this.followers.size;
  }
}
