import { queryBool } from './query-values.js';
import { StreamError } from './stream-error.js';
import type { AttachOptions, ExecOptions } from './types.js';

/**
 * `PodAttachOptions` from an `attach` query (`stdin`, `stdout`, `stderr`, `tty`), with
 * kubelet's rules: a terminal has no separate stderr, and at least one stream is required
 * (kubelet answers 400 with the text, which kubectl prints as
 * `error: unable to upgrade connection: you must specify at least 1 of stdin, stdout, stderr`).
 */
export function parseAttachOptions(query: URLSearchParams, container: string): AttachOptions {
  const tty = queryBool(query, 'tty');
  const stdin = queryBool(query, 'stdin');
  const stdout = queryBool(query, 'stdout');
  const stderr = queryBool(query, 'stderr') && !tty;
  if (!stdin && !stdout && !stderr) throw StreamError.node(400, 'you must specify at least 1 of stdin, stdout, stderr');
  return { container, stdin, stdout, stderr, tty };
}

/** `PodExecOptions`: the attach options and the repeated `command` parameter (argv). */
export function parseExecOptions(query: URLSearchParams, container: string): ExecOptions {
  return { ...parseAttachOptions(query, container), command: query.getAll('command') };
}

/** How many streams the client opens for these options over SPDY (the error stream included). */
export function expectedStreamCount(options: AttachOptions, resizeSupported: boolean): number {
  return 1 + Number(options.stdin) + Number(options.stdout) + Number(options.stderr) + Number(options.tty && resizeSupported);
}
