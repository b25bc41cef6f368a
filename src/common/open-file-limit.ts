import { readFileSync } from 'node:fs';

/** A process's limit on open file descriptors (sockets included): the soft one applies, the hard one is how far it may be raised. */
export interface OpenFileLimit {
  readonly soft: number;
  readonly hard: number;
}

/** The "Max open files" line of a Linux `/proc/<pid>/limits` (`unlimited` is Infinity); undefined without one. */
export function parseOpenFileLimit(limits: string): OpenFileLimit | undefined {
  const match = /^Max open files\s+(\S+)\s+(\S+)/m.exec(limits);
  if (match === null) return undefined;
  const value = (field: string | undefined): number => (field === 'unlimited' ? Number.POSITIVE_INFINITY : Number(field));
  const soft = value(match[1]);
  const hard = value(match[2]);
  return Number.isNaN(soft) || Number.isNaN(hard) ? undefined : { soft, hard };
}

/**
 * This process's open-file limit, read from `/proc/self/limits` (Linux; undefined elsewhere).
 * Node raises the soft limit to the hard one when it starts, so the soft limit read here is
 * usually the hard limit `ulimit -Hn` of the shell that started it.
 */
export function openFileLimit(): OpenFileLimit | undefined {
  try {
    return parseOpenFileLimit(readFileSync('/proc/self/limits', 'utf8'));
  } catch {
    return undefined;
  }
}
