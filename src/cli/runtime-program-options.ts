import { Option, type Command } from 'commander';
import type { RuntimeProgramPaths } from '../site-agent/runtimes/runc/index.js';

/** Options of the runc runtime's programs, as commander parses them. */
export interface RuntimeProgramFlags {
  runc?: string;
  conmon?: string;
  catatonit?: string;
  ip?: string;
  nft?: string;
  socat?: string;
  haproxy?: string;
  dnsmasq?: string;
  umoci?: string;
}

const PROGRAMS: ReadonlyArray<readonly [Exclude<keyof RuntimeProgramFlags, 'umoci'>, string]> = [
  ['runc', 'the OCI runtime (Debian runc)'],
  ['conmon', 'the container monitor (Debian conmon)'],
  ['catatonit', 'the pod sandbox\'s init (Debian catatonit)'],
  ['ip', 'iproute2\'s ip (Debian iproute2)'],
  ['nft', 'nftables\' nft: the site network\'s packet filter (Debian nftables)'],
  ['socat', 'carries `kubectl attach -i` input (Debian socat; optional)'],
  ['haproxy', 'the Service proxy (Debian haproxy; optional: without it and dnsmasq Services carry no traffic)'],
  ['dnsmasq', 'the clusters\' name servers (Debian dnsmasq-base; optional, as haproxy)'],
];

/** Adds `--runc <path>`, `--conmon <path>`, … (each also an EDGEPLANE_<NAME> variable); a program not given is found on PATH. */
export function addRuntimeProgramOptions(command: Command): Command {
  for (const [name, what] of PROGRAMS) command.addOption(new Option(`--${name} <path>`, `runc runtime: ${what}; default: found on PATH`).env(`EDGEPLANE_${name.toUpperCase()}`));
  return command;
}

/** The paths the options gave (those not given are looked up on PATH by the runtime). */
export function runtimeProgramPaths(flags: RuntimeProgramFlags): RuntimeProgramPaths {
  const paths: Record<string, string> = {};
  for (const [name] of PROGRAMS) {
    const value = flags[name];
    if (value !== undefined && value !== '') paths[name] = value;
  }
  if (flags.umoci !== undefined && flags.umoci !== '') paths['umoci'] = flags.umoci;
  return paths;
}
