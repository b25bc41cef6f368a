import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { SiteTerminalSize } from '../../../../site-api/pod-streams.js';
import type { Program } from '../../../host/index.js';

/** conmon's largest accepted terminal side (`src/ctrl.c` refuses more than 1000). */
const MAX_SIDE = 1000;

/**
 * conmon's control message for a terminal size (`WIN_RESIZE_EVENT` 1, then rows and columns,
 * `src/ctrl.c`), sides capped at what conmon accepts; undefined for an empty size.
 */
export function resizeMessage(size: SiteTerminalSize): string | undefined {
  const rows = Math.min(MAX_SIDE, Math.floor(size.height));
  const columns = Math.min(MAX_SIDE, Math.floor(size.width));
  if (!(rows > 0 && columns > 0)) return undefined;
  return `1 ${rows} ${columns}\n`;
}

/** How {@link paceResizes} spaces its writes. */
interface ResizePacing {
  /** Between two writes, so that conmon reads each alone. */
  readonly spacingMs: number;
  /** After the last write, the same size once more. */
  readonly confirmMs: number;
}

const PACING: ResizePacing = { spacingMs: 50, confirmMs: 250 };

/**
 * Passes terminal sizes to `write` so that conmon 2.1.6 applies the last one: it reads its
 * control FIFO in chunks and applies the *first* line of a chunk once per line it holds (its
 * `read_from_ctrl_buffer` hands every line the buffer's start), so two sizes written close
 * together — kubectl attach sends its size plus one, then its size, to make programs redraw
 * — would leave the first. Writes are spaced (`spacingMs`), sizes that came meanwhile
 * collapse into the newest, and the last size is written again after `confirmMs` (a size set
 * twice is no change: the kernel sends SIGWINCH only when it differs). Resolves when the sizes
 * end or `signal` aborts, or as soon as `write` says conmon is gone (false).
 */
export async function paceResizes(sizes: AsyncIterable<SiteTerminalSize>, write: (message: string) => Promise<boolean>, signal: AbortSignal, pacing: ResizePacing = PACING): Promise<void> {
  let latest: string | undefined;
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const resume = wake;
    wake = undefined;
    resume?.();
  };
  const idle = (ms?: number): Promise<void> =>
    new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  signal.addEventListener('abort', notify);
  void (async () => {
    try {
      for await (const size of sizes) {
        if (signal.aborted) break;
        const message = resizeMessage(size);
        if (message === undefined) continue;
        latest = message;
        notify();
      }
    } finally {
      ended = true;
      notify();
    }
  })().catch(() => undefined);
  let sent: string | undefined;
  let confirmed = true;
  try {
    while (!signal.aborted) {
      if (latest !== undefined && latest !== sent) {
        sent = latest;
        confirmed = false;
        if (!(await write(sent))) return;
        await new Promise((resolve) => setTimeout(resolve, pacing.spacingMs));
      } else if (!confirmed && sent !== undefined) {
        await idle(pacing.confirmMs);
        if (latest !== sent || signal.aborted) continue;
        confirmed = true;
        if (!(await write(sent))) return;
      } else if (ended) {
        return;
      } else {
        await idle();
      }
    }
  } finally {
    signal.removeEventListener('abort', notify);
  }
}

/**
 * Sets the size of a container's terminal (conmon `-t`) for each size the client sends, by
 * writing to the `ctl` FIFO conmon made in the bundle, paced ({@link paceResizes}); conmon
 * sets it on runc's console, and the kernel sends the container's foreground process
 * SIGWINCH. Stops with `signal`, or when conmon is gone (the FIFO has no reader: ENXIO).
 */
export function followResizes(bundle: string, sizes: AsyncIterable<SiteTerminalSize>, signal: AbortSignal): Promise<void> {
  const fifo = join(bundle, 'ctl');
  return paceResizes(sizes, async (message) => {
    // Non-blocking: with no conmon reading, the open fails instead of waiting for one.
    const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
    if (handle === undefined) return false;
    try {
      await handle.write(message);
      return true;
    } finally {
      await handle.close();
    }
  }, signal);
}

/** An input bridge: stop ends it (socat is killed by its pid) and resolves once it has exited. */
export interface InputBridge {
  stop(): Promise<void>;
}

/**
 * Carries a session's input to a container's stdin through conmon's attach socket
 * (`<bundle>/attach`, SOCK_SEQPACKET: each chunk one packet, passed to the container's stdin or
 * terminal as raw bytes). Node cannot open that socket type, so socat does: `socat STDIN
 * UNIX-CONNECT:attach,type=5`, run in the bundle so the path is short whatever the bundle's
 * length (a unix socket path holds 107 bytes). socat also reads what conmon sends back on the
 * socket (the output, prefixed with its stream) and drops it: conmon writes to attach clients
 * blocking, so an unread socket would stall the container. The output reaches the client from
 * the log instead. The input's end reaches socat as EOF; socat then half-closes the socket and
 * conmon closes the container's stdin unless it keeps it open (`stdinOnce: false`).
 */
export function bridgeAttachInput(socat: Program, bundle: string, input: Readable): InputBridge {
  const child = spawn(socat.path, ['STDIN', 'UNIX-CONNECT:attach,type=5'], { cwd: bundle, env: { ...process.env, ...socat.env }, stdio: ['pipe', 'ignore', 'ignore'] });
  const exited = new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.once('error', () => resolve());
  });
  // socat may be gone (the container exited, conmon went away) before the input ends.
  child.stdin?.on('error', () => undefined);
  if (child.stdin !== null) input.pipe(child.stdin);
  return {
    stop: async () => {
      if (child.stdin !== null) input.unpipe(child.stdin);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
