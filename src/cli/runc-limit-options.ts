import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { Quantity } from '../apimachinery/quantity/quantity.js';
import type { RuncAgentOptions } from '../site-agent/runtimes/runc/index.js';

/** The runc runtime's per-site limits and profiles, as commander parses them. */
export interface RuncLimitFlags {
  podPidsLimit?: number;
  sitePidsLimit?: number;
  seccompProfileRoot?: string;
  siteEphemeralStorage?: number;
  ephemeralStorageCheckSeconds?: number;
  containerLogMaxSize?: number;
  containerLogMaxFiles?: number;
}

/** Bytes of a quantity, at least `min`. */
const bytes = (min: number) => (value: string): number => {
  let n: number;
  try {
    n = Number(Quantity.parse(value).value());
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  if (n < min) throw new InvalidArgumentError(`must be at least ${min} bytes`);
  return n;
};

const atLeast = (min: number) => (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`must be a whole number, at least ${min}`);
  return n;
};

const processes = (value: string): number => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 16) throw new InvalidArgumentError('must be a whole number of processes, at least 16');
  return n;
};

/**
 * Adds `--pod-pids-limit`, `--site-pids-limit`, `--seccomp-profile-root` and the disk flags
 * (`--site-ephemeral-storage`, `--ephemeral-storage-check-seconds`, `--container-log-max-size`,
 * `--container-log-max-files`) of runc sites.
 */
export function addRuncLimitOptions(command: Command): Command {
  return command
    .addOption(new Option('--pod-pids-limit <n>', "runc: the most processes one pod's containers may hold together (kubelet's podPidsLimit)").default(4096).argParser(processes))
    .addOption(new Option('--site-pids-limit <n>', "runc: the most processes the site's pods may hold together (default: the host's pid_max less max(4096, pid_max/8))").argParser(processes))
    .addOption(new Option('--seccomp-profile-root <dir>', 'runc: the folder of the Localhost seccomp profiles pods may name (default: <home>/seccomp)'))
    .addOption(
      new Option('--site-ephemeral-storage <quantity>', 'runc: the most disk all pods of a site may hold together (writable layers, logs, emptyDirs); past it one pod is evicted as kubelet picks under disk pressure (default: no cap)')
        .argParser(bytes(1)),
    )
    .addOption(new Option('--ephemeral-storage-check-seconds <s>', "runc: how often pods' disk usage is measured against emptyDir sizeLimit, limits.ephemeral-storage and the site's cap (default: 10)").argParser(atLeast(1)))
    .addOption(new Option('--container-log-max-size <quantity>', "runc: a container's log is rotated once this big (kubelet's flag; default: 10Mi)").argParser(bytes(1024)))
    .addOption(new Option('--container-log-max-files <n>', "runc: log files kept per container, the live one included (kubelet's flag; default: 5)").argParser(atLeast(2)));
}

type RuncLimits = Pick<RuncAgentOptions, 'podPidsLimit' | 'sitePidsLimit' | 'seccompProfileRoot' | 'siteEphemeralStorageBytes' | 'storageCheckMs' | 'containerLogs'>;

/** What the flags give the runc runtime (those not given keep the runtime's defaults). */
export function runcLimits(flags: RuncLimitFlags): RuncLimits {
  const logs = {
    ...(flags.containerLogMaxSize === undefined ? {} : { maxSize: flags.containerLogMaxSize }),
    ...(flags.containerLogMaxFiles === undefined ? {} : { maxFiles: flags.containerLogMaxFiles }),
  };
  return {
    ...(flags.podPidsLimit === undefined ? {} : { podPidsLimit: flags.podPidsLimit }),
    ...(flags.sitePidsLimit === undefined ? {} : { sitePidsLimit: flags.sitePidsLimit }),
    ...(flags.seccompProfileRoot === undefined ? {} : { seccompProfileRoot: resolve(flags.seccompProfileRoot) }),
    ...(flags.siteEphemeralStorage === undefined ? {} : { siteEphemeralStorageBytes: flags.siteEphemeralStorage }),
    ...(flags.ephemeralStorageCheckSeconds === undefined ? {} : { storageCheckMs: flags.ephemeralStorageCheckSeconds * 1000 }),
    ...(Object.keys(logs).length === 0 ? {} : { containerLogs: logs }),
  };
}
