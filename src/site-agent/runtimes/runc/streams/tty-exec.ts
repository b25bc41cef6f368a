import { spawn as spawnPty } from 'node-pty';
import type { SiteStreamIo } from '../../../../site-api/pod-streams.js';

const DEFAULT_SIZE = { width: 80, height: 24 };

/**
 * Runs `runc exec --tty` on a pseudo-terminal the agent owns (node-pty): runc, seeing a
 * terminal on its stdin, makes a console inside the container, puts ours in raw mode and
 * copies between the two; a size set on ours (TIOCSWINSZ through node-pty's resize) makes
 * the kernel send runc SIGWINCH, and runc sets that size on the container's console. So the
 * command gets a real terminal without the agent receiving runc's console fd (SCM_RIGHTS,
 * which Node cannot). Output is one stream (a terminal merges stdout and stderr); reading
 * pauses the terminal while the client's stdout is full. Resolves with runc's exit status.
 */
export function runTtyExec(runc: { file: string; args: string[]; env: NodeJS.ProcessEnv }, io: SiteStreamIo, killCommand: () => Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    let terminal: ReturnType<typeof spawnPty>;
    try {
      terminal = spawnPty(runc.file, runc.args, { name: 'xterm', cols: DEFAULT_SIZE.width, rows: DEFAULT_SIZE.height, env: runc.env, encoding: null });
    } catch (error) {
      reject(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    let ended = false;
    const out = io.stdout;
    terminal.onData((data: string | Buffer) => {
      if (out === undefined || out.destroyed) return;
      if (!out.write(data)) {
        terminal.pause();
        out.once('drain', () => {
          if (!ended) terminal.resume();
        });
      }
    });
    const onInput = (chunk: Buffer | string): void => {
      if (!ended) terminal.write(chunk);
    };
    io.stdin?.on('data', onInput);
    void (async () => {
      if (io.resize === undefined) return;
      for await (const size of io.resize) {
        if (ended) return;
        if (size.width > 0 && size.height > 0) terminal.resize(size.width, size.height);
      }
    })().catch(() => undefined);
    const onAbort = (): void => {
      void killCommand().finally(() => {
        if (!ended) terminal.kill('SIGKILL');
      });
    };
    if (io.signal.aborted) onAbort();
    io.signal.addEventListener('abort', onAbort);
    terminal.onExit(({ exitCode, signal }) => {
      ended = true;
      io.signal.removeEventListener('abort', onAbort);
      io.stdin?.off('data', onInput);
      resolve(signal !== undefined && signal > 0 && exitCode === 0 ? 128 + signal : exitCode);
    });
  });
}
