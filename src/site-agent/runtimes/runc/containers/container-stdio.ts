import type { Container } from '../../../../api/pod-spec-types.js';

/** A container's `stdin`, `stdinOnce` and `tty` (each false unless the spec says true). */
export interface ContainerStdio {
  readonly stdin: boolean;
  readonly stdinOnce: boolean;
  readonly tty: boolean;
}

/** A container with neither stdin nor a terminal (the sandbox's infra container, most workloads). */
export const NO_STDIO: ContainerStdio = { stdin: false, stdinOnce: false, tty: false };

export function containerStdio(container: Container): ContainerStdio {
  return { stdin: container['stdin'] === true, stdinOnce: container['stdinOnce'] === true, tty: container['tty'] === true };
}

/**
 * conmon's options for a container's stdio, as CRI-O chooses them: a terminal (`-t`: conmon
 * takes runc's console and writes what it shows to the log as stdout; input goes to it); else
 * with stdin a pipe kept open (`-i`) that the first attach session to send input closes when
 * it leaves with `stdinOnce` (conmon's default), or that stays open (`--leave-stdin-open`).
 * Without either, the container's stdin is /dev/null and attach input goes nowhere.
 */
export function conmonStdioArgs(stdio: ContainerStdio): string[] {
  if (stdio.tty) return ['-t'];
  if (!stdio.stdin) return [];
  return stdio.stdinOnce ? ['-i'] : ['-i', '--leave-stdin-open'];
}
