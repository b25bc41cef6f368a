import { execFile, spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Program } from '../../../host/index.js';
import { conmonStdioArgs, NO_STDIO, type ContainerStdio } from './container-stdio.js';


/** runc or conmon failed: the command and what it said. */
export class ContainerCommandError extends Error {
  constructor(
    message: string,
    /** runc's own words, for Events and statuses. */
    readonly reason: string,
  ) {
    super(message);
  }
}

type RuncStatus = 'creating' | 'created' | 'running' | 'paused' | 'stopped';

export interface RuncState {
  readonly id: string;
  readonly status: RuncStatus;
  readonly pid: number;
  readonly bundle: string;
}

/** Where one container's files are (the agent decides; all inside the pod's folder). */
export interface ContainerFiles {
  readonly bundle: string;
  /** The CRI-format log conmon writes. */
  readonly log: string;
  /** conmon writes `<exitDir>/<id>` holding the exit code. */
  readonly exitDir: string;
  /** conmon writes `oom` here when the kernel's OOM killer ended the container. */
  readonly persistDir: string;
  readonly socketDir: string;
}

const COMMAND_TIMEOUT_MS = 30_000;

/**
 * The containers of one site, run by runc under conmon: conmon holds each container's
 * stdio and writes its CRI log, survives the agent (so a restarted agent finds its containers
 * running), records the exit code and an OOM kill; runc keeps its state under `root`.
 */
export class RuncContainers {
  constructor(
    private readonly runc: Program,
    private readonly conmon: Program,
    /** runc's state directory (`runc --root`), one per site. */
    readonly root: string,
    /** conmon's cap on each log file (`--log-size-max`, see `conmonLogSizeMax`); none when undefined. */
    private readonly logSizeMax?: number,
  ) {}

  /**
   * Creates the container (namespaces, cgroup, mounts; its process waits before exec) under a
   * new conmon, and resolves with its pid once runc has made it; a failure carries runc's message.
   * `stdio` says whether conmon keeps the container's stdin open or gives it a terminal (its
   * bundle's `process.terminal` must agree): see {@link conmonStdioArgs}.
   */
  create(id: string, files: ContainerFiles, stdio: ContainerStdio = NO_STDIO): Promise<number> {
    const args = [
      '--cid', id, '--cuuid', id, '--name', id,
      '--runtime', this.runc.path, '--runtime-arg', `--root=${this.root}`,
      '--bundle', files.bundle,
      '--container-pidfile', join(files.persistDir, 'pid'),
      '--conmon-pidfile', join(files.persistDir, 'conmon.pid'),
      '--exit-dir', files.exitDir,
      '--persist-dir', files.persistDir,
      '--socket-dir-path', files.socketDir,
      '--log-path', `k8s-file:${files.log}`,
      ...(this.logSizeMax === undefined ? [] : ['--log-size-max', String(this.logSizeMax)]),
      '--log-level', 'warn',
      '--syslog=false',
      ...conmonStdioArgs(stdio),
    ];
    return new Promise((resolve, reject) => {
      // conmon reports on the sync pipe ({"pid": pid} or {"pid": -1, "message": …}) after `runc create`, then daemonizes.
      // In the container's own folder: conmon writes files into its working directory (an `oom`
      // file on an OOM kill), which must not be the agent's.
      const cwd = dirname(files.bundle);
      const child = spawn(this.conmon.path, args, { cwd, env: { ...process.env, ...this.conmon.env, _OCI_SYNCPIPE: '3' }, stdio: ['ignore', 'ignore', 'pipe', 'pipe'], detached: true });
      let sync = '';
      let stderr = '';
      let settled = false;
      const settle = (report: { pid: number; message?: string } | undefined): void => {
        if (settled) return;
        settled = true;
        child.stdio[3]?.destroy();
        if (report !== undefined && report.pid > 0) return resolve(report.pid);
        const reason = runcReason(report?.message ?? stderr) ?? 'conmon ended without creating the container';
        reject(new ContainerCommandError(`creating container ${id}: ${reason}`, reason));
      };
      child.stdio[3]?.on('data', (chunk: Buffer) => {
        sync += chunk.toString();
        const report = parseSync(sync);
        if (report !== undefined) settle(report);
      });
      child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
      child.once('error', (error) => {
        settled = true;
        reject(new ContainerCommandError(`cannot run conmon: ${error.message}`, error.message));
      });
      child.stdio[3]?.once('close', () => settle(parseSync(sync)));
      child.unref();
    });
  }

  async start(id: string): Promise<void> {
    await this.run(['start', id]);
  }

  async state(id: string): Promise<RuncState | undefined> {
    try {
      return JSON.parse(await this.run(['state', id])) as RuncState;
    } catch (error) {
      if (error instanceof ContainerCommandError && /does not exist|not exist/.test(error.reason)) return undefined;
      throw error;
    }
  }

  async list(): Promise<RuncState[]> {
    const output = await this.run(['list', '--format', 'json']);
    return (JSON.parse(output === '' ? 'null' : output) as RuncState[] | null) ?? [];
  }

  /** Sends `signal` to the container's init, or with `all` to every process in it. */
  async kill(id: string, signal: string, all = false): Promise<void> {
    await this.run(['kill', ...(all ? ['--all'] : []), id, signal]);
  }

  /** Runs `args` in the running container (probes, preStop hooks): its exit code and first 10 KiB of output; a timeout kills it. */
  exec(id: string, args: readonly string[], timeoutMs: number): Promise<{ exitCode: number; output: string }> {
    return new Promise((resolve, reject) => {
      execFile(this.runc.path, ['--root', this.root, 'exec', id, ...args], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 20, env: { ...process.env, ...this.runc.env } }, (error, stdout, stderr) => {
        const output = (stdout + stderr).slice(0, 10 * 1024);
        if (error === null) return resolve({ exitCode: 0, output });
        if (error.killed === true) return reject(new ContainerCommandError(`runc exec ${id}: timed out after ${timeoutMs} ms`, 'command timed out'));
        if (typeof error.code === 'number') return resolve({ exitCode: error.code, output });
        reject(new ContainerCommandError(`runc exec ${id}: ${error.message}`, error.message));
      });
    });
  }

  /** How to run `runc <args>` on this site's containers, for sessions that own their process (an exec's stdio or terminal). */
  command(args: readonly string[]): { file: string; args: string[]; env: NodeJS.ProcessEnv } {
    return { file: this.runc.path, args: ['--root', this.root, ...args], env: { ...process.env, ...this.runc.env } };
  }

  /** Removes a stopped container (with `force`, a running one too); its cgroup goes with it. */
  async delete(id: string, force = false): Promise<void> {
    await this.run(['delete', ...(force ? ['--force'] : []), id]);
  }

  /** The exit code conmon recorded, once the container has stopped. */
  async exitCode(id: string, files: ContainerFiles): Promise<number | undefined> {
    const text = await readFile(join(files.exitDir, id), 'utf8').catch(() => undefined);
    const code = text === undefined ? Number.NaN : Number.parseInt(text.trim(), 10);
    return Number.isInteger(code) ? code : undefined;
  }

  /** Whether the kernel's OOM killer ended the container (conmon leaves an `oom` file). */
  async oomKilled(files: ContainerFiles): Promise<boolean> {
    return (await readFile(join(files.persistDir, 'oom')).catch(() => undefined)) !== undefined;
  }

  private run(args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(this.runc.path, ['--root', this.root, ...args], { encoding: 'utf8', timeout: COMMAND_TIMEOUT_MS, env: { ...process.env, ...this.runc.env } }, (error, stdout, stderr) => {
        if (error === null) return resolve(stdout);
        const reason = runcReason(stderr) ?? error.message;
        reject(new ContainerCommandError(`runc ${args.join(' ')}: ${reason}`, reason));
      });
    });
  }
}

/** runc logs as logfmt (`level=error msg="…"`); the message is what a user needs. */
function runcReason(stderr: string): string | undefined {
  const lines = stderr.trim().split('\n').filter((line) => line !== '');
  const last = lines.at(-1);
  if (last === undefined) return undefined;
  const message = /msg="((?:[^"\\]|\\.)*)"/.exec(last);
  return message === null ? last : (message[1] as string).replace(/\\"/g, '"');
}

function parseSync(text: string): { pid: number; message?: string } | undefined {
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const parsed = JSON.parse(line) as { pid?: number; data?: number; message?: string };
      const pid = parsed.pid ?? parsed.data;
      if (typeof pid === 'number') return { pid, ...(parsed.message === undefined ? {} : { message: parsed.message }) };
    } catch {
      // not a report
    }
  }
  return undefined;
}
