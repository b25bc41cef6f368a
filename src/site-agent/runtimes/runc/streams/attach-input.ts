import { spawn } from 'node:child_process';
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { SiteTerminalSize } from '../../../../site-api/pod-streams.js';
import type { Program } from '../runc-containers.js';

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

/**
 * Sets the size of a container's terminal (conmon `-t`) for each size the client sends, by
 * writing to the `ctl` FIFO conmon made in the bundle; conmon sets it on runc's console, and
 * the kernel sends the container's foreground process SIGWINCH. Stops with `signal`; a
 * conmon that is gone (ENXIO) is not the session's error.
 */
export async function followResizes(bundle: string, sizes: AsyncIterable<SiteTerminalSize>, signal: AbortSignal): Promise<void> {
  const fifo = join(bundle, 'ctl');
  for await (const size of sizes) {
    if (signal.aborted) return;
    const message = resizeMessage(size);
    if (message === undefined) continue;
    // Non-blocking: with no conmon reading, the open fails instead of waiting for one.
    const handle = await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK).catch(() => undefined);
    if (handle === undefined) return;
    try {
      await handle.write(message);
    } finally {
      await handle.close();
    }
  }
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
