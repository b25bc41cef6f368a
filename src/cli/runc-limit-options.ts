import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';

/** The runc runtime's per-site limits and profiles, as commander parses them. */
export interface RuncLimitFlags {
  podPidsLimit?: number;
  sitePidsLimit?: number;
  seccompProfileRoot?: string;
}

const processes = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 16) throw new InvalidArgumentError('must be a whole number of processes, at least 16');
  return n;
};

/** Adds `--pod-pids-limit`, `--site-pids-limit` and `--seccomp-profile-root` (runc sites). */
export function addRuncLimitOptions(command: Command): Command {
  return command
    .addOption(new Option('--pod-pids-limit <n>', "runc: the most processes one pod's containers may hold together (kubelet's podPidsLimit)").default(4096).argParser(processes))
    .addOption(new Option('--site-pids-limit <n>', "runc: the most processes the site's pods may hold together (default: the host's pid_max less max(4096, pid_max/8))").argParser(processes))
    .addOption(new Option('--seccomp-profile-root <dir>', 'runc: the folder of the Localhost seccomp profiles pods may name (default: <home>/seccomp)'));
}

/** What the flags give the runc runtime (those not given keep the runtime's defaults). */
export function runcLimits(flags: RuncLimitFlags): { podPidsLimit?: number; sitePidsLimit?: number; seccompProfileRoot?: string } {
  return {
    ...(flags.podPidsLimit === undefined ? {} : { podPidsLimit: flags.podPidsLimit }),
    ...(flags.sitePidsLimit === undefined ? {} : { sitePidsLimit: flags.sitePidsLimit }),
    ...(flags.seccompProfileRoot === undefined ? {} : { seccompProfileRoot: resolve(flags.seccompProfileRoot) }),
  };
}
