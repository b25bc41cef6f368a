import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SiteExecOptions, SiteStreamIo } from '../../../../site-api/pod-streams.js';
import type { RuncContainers } from '../containers/index.js';
import { runTtyExec } from './tty-exec.js';

/** Where an exec session keeps its runc files (the pod's folder: root only). */
export interface ExecPlace {
  readonly containers: RuncContainers;
  readonly id: string;
  readonly dir: string;
}

/**
 * The exit code kubectl shows when runc could not start the command, as Docker and CRI-O
 * report it: 127 when the program was not found, 126 when it could not be run. `undefined`
 * when runc ran the command (its exit status is the command's).
 */
export function execFailureCode(status: number, runcLog: string): number | undefined {
  if (status !== 255) return undefined;
  const failure = runcLog.split('\n').map((line) => {
    try {
      return JSON.parse(line) as { level?: string; msg?: string };
    } catch {
      return undefined;
    }
  }).find((entry) => entry?.level === 'error' || entry?.level === 'fatal');
  if (failure === undefined) return undefined;
  return /executable file not found|no such file or directory/.test(failure.msg ?? '') ? 127 : 126;
}

/**
 * Runs `runc exec` of `options.command` in a running container and resolves with its exit
 * code. runc takes the container's process settings from its bundle (environment, user and
 * groups, working directory, capabilities, no-new-privileges, rlimits), as the CRI's exec
 * does with the container's spec; only the argv and the terminal are the session's. Without a
 * terminal the standard streams are pipes with backpressure and stdin's end reaches the
 * command as EOF; with one, see {@link runTtyExec}. An abort kills the command's process
 * (runc writes its pid to `--pid-file`; killing the runc client would leave it running).
 */
export async function runcExec(place: ExecPlace, options: SiteExecOptions, io: SiteStreamIo): Promise<number> {
  const token = randomBytes(6).toString('hex');
  const pidFile = join(place.dir, `exec-${token}.pid`);
  const logFile = join(place.dir, `exec-${token}.log`);
  const runc = place.containers.command(['--log', logFile, '--log-format', 'json', 'exec', ...(options.tty ? ['--tty'] : []), '--pid-file', pidFile, place.id, ...options.command]);
  const killCommand = async (): Promise<void> => {
    // runc writes the pid file just after the command starts: an abort in between waits for it (at most 5 s).
    for (let attempt = 0; attempt < 250; attempt++) {
      const pid = Number.parseInt(await readFile(pidFile, 'utf8').catch(() => ''), 10);
      if (Number.isInteger(pid) && pid > 1) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  try {
    const status = options.tty ? await runTtyExec(runc, io, killCommand) : await runPiped(runc, options, io, killCommand);
    return execFailureCode(status, await readFile(logFile, 'utf8').catch(() => '')) ?? status;
  } finally {
    await rm(pidFile, { force: true });
    await rm(logFile, { force: true });
  }
}

/** `runc exec` with pipes: resolves with runc's exit status once the command ended and its output was passed on. */
function runPiped(runc: { file: string; args: string[]; env: NodeJS.ProcessEnv }, options: SiteExecOptions, io: SiteStreamIo, killCommand: () => Promise<void>): Promise<number> {
  return new Promise((resolve, reject) => {
    const wantIn = options.stdin && io.stdin !== undefined;
    const child = spawn(runc.file, runc.args, { env: runc.env, stdio: [wantIn ? 'pipe' : 'ignore', io.stdout === undefined ? 'ignore' : 'pipe', io.stderr === undefined ? 'ignore' : 'pipe'] });
    const onAbort = (): void => {
      void killCommand().finally(() => child.kill('SIGKILL'));
    };
    if (io.signal.aborted) onAbort();
    io.signal.addEventListener('abort', onAbort);
    if (wantIn && child.stdin !== null && io.stdin !== undefined) {
      // The command may exit before reading everything: a closed pipe is not the session's error.
      child.stdin.on('error', () => undefined);
      io.stdin.pipe(child.stdin);
    }
    if (child.stdout !== null && io.stdout !== undefined) child.stdout.pipe(io.stdout, { end: false });
    if (child.stderr !== null && io.stderr !== undefined) child.stderr.pipe(io.stderr, { end: false });
    child.once('error', (error) => {
      io.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.once('close', (code, signal) => {
      io.signal.removeEventListener('abort', onAbort);
      if (wantIn && io.stdin !== undefined && child.stdin !== null) io.stdin.unpipe(child.stdin);
      resolve(code ?? 128 + signalNumber(signal));
    });
  });
}

const SIGNALS: Record<string, number> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };

function signalNumber(signal: NodeJS.Signals | null): number {
  return signal === null ? 0 : (SIGNALS[signal] ?? 9);
}
