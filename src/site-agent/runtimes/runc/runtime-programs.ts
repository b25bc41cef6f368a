import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executable, onPath, type Program } from '../../host/index.js';

/** The programs a runc site runs. */
export interface RuntimePrograms {
  readonly runc: Program & { readonly version: string };
  readonly conmon: Program;
  readonly catatonit: string;
  readonly ip: string;
  /** Loads the site network's packet filter (nftables). */
  readonly nft: Program;
  /** Unpacks images on import (only `edgeplane image import` runs it). */
  readonly umoci: Program;
  /** util-linux's mount and umount (Node cannot call mount(2)). */
  readonly mount: { readonly mount: string; readonly umount: string };
  /** Carries `kubectl attach -i` input (optional: attach with stdin needs it). */
  readonly socat?: Program;
  /** The site's Service data plane (optional: without them Services carry no traffic and no name resolves). */
  readonly haproxy?: Program;
  readonly dnsmasq?: Program;
}

/**
 * Where the runtime's programs are, as the command's flags and environment give them
 * (`--runc`, `EDGEPLANE_RUNC`, …; see the site and server commands): each one given is used
 * as it is, the others are looked up on PATH (then /usr/sbin, /sbin).
 */
export interface RuntimeProgramPaths {
  readonly runc?: string;
  readonly conmon?: string;
  readonly catatonit?: string;
  readonly ip?: string;
  readonly nft?: string;
  readonly umoci?: string;
  readonly socat?: string;
  readonly haproxy?: string;
  readonly dnsmasq?: string;
}

/** The installation: the first folder above this module holding node_modules (the repository, or an unpacked package). */
function findInstallation(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'node_modules')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const INSTALLATION = findInstallation();
/** The sidecar's own entry point in the running build (`edgeplane sidecar` without the other commands). */
const SIDECAR_MAIN = fileURLToPath(new URL('../../../cli/sidecar-entry.js', import.meta.url));
const DEBIAN_PACKAGE = {
  runc: 'runc',
  conmon: 'conmon',
  catatonit: 'catatonit',
  ip: 'iproute2',
  nft: 'nftables',
  umoci: 'umoci',
  socat: 'socat',
  haproxy: 'haproxy',
  dnsmasq: 'dnsmasq-base',
} as const;
type ProgramName = keyof typeof DEBIAN_PACKAGE;
const REQUIRED: readonly ProgramName[] = ['runc', 'conmon', 'catatonit', 'ip', 'nft'];

/** The runtime cannot run here: what is missing and how to get it. */
class RuntimeUnavailableError extends Error {}

/** How to get `names`: the flags that point at them, or Debian's packages. */
function howToGet(names: readonly ProgramName[]): string {
  const flags = names.map((name) => `--${name}`).join(', ');
  return `install them ("apt-get install ${names.map((name) => DEBIAN_PACKAGE[name]).join(' ')}") or give their paths (${flags}, or the EDGEPLANE_<NAME> variables); in a checkout, "npm start" provisions them into .tools/bin (node scripts/provision-tools.mjs --for runtime)`;
}

function locate(name: ProgramName, paths: RuntimeProgramPaths): Program | undefined {
  const given = paths[name];
  if (given !== undefined && given !== '') {
    if (!executable(given)) throw new RuntimeUnavailableError(`${name}: ${given} is not an executable file`);
    return { path: given, env: {} };
  }
  const found = onPath(name, process.env['PATH'] ?? '');
  return found === undefined ? undefined : { path: found, env: {} };
}

/** runc's version, as `runc --version` says it (`1.1.5+ds1`); '' when it does not say. */
function runcVersion(runc: Program): string {
  try {
    const output = execFileSync(runc.path, ['--version'], { encoding: 'utf8', timeout: 10_000, env: { ...process.env, ...runc.env } });
    return /^runc version (\S+)/m.exec(output)?.[1] ?? '';
  } catch {
    return '';
  }
}

/**
 * The programs of the runc runtime from `paths` (else PATH): runc, conmon, catatonit, ip and
 * nft (the site network's filter: no site runs without it) are required, and root; socat, HAProxy and dnsmasq are optional (the features that need
 * them say so). Refuses without root, naming it; a missing program is named with how to get it.
 */
export function findRuntimePrograms(paths: RuntimeProgramPaths = {}): RuntimePrograms {
  if (process.getuid?.() !== 0) throw new RuntimeUnavailableError('the runc runtime needs root (network namespaces, cgroups, mounts); run the site agent as root or use --runtime simulated');
  const found = new Map(REQUIRED.map((name) => [name, locate(name, paths)] as const));
  const missing = REQUIRED.filter((name) => found.get(name) === undefined);
  if (missing.length > 0) throw new RuntimeUnavailableError(`the runc runtime needs ${missing.map((name) => `${name} (Debian package ${DEBIAN_PACKAGE[name]})`).join(', ')}: ${howToGet(missing)}`);
  const get = (name: ProgramName): Program => found.get(name) as Program;
  const optional = (name: ProgramName): { readonly [key: string]: Program } => {
    const program = locate(name, paths);
    return program === undefined ? {} : { [name]: program };
  };
  const runc = get('runc');
  return {
    runc: { ...runc, version: runcVersion(runc) },
    conmon: get('conmon'),
    catatonit: get('catatonit').path,
    ip: get('ip').path,
    nft: get('nft'),
    umoci: locate('umoci', paths) ?? { path: 'umoci', env: {} },
    mount: { mount: onPath('mount', process.env['PATH'] ?? '') ?? '/usr/bin/mount', umount: onPath('umount', process.env['PATH'] ?? '') ?? '/usr/bin/umount' },
    ...optional('socat'),
    ...optional('haproxy'),
    ...optional('dnsmasq'),
  };
}

/**
 * umoci alone, for `edgeplane image import` (which needs nothing else of the runtime): the one
 * given, else PATH's; the import says how to get it when it cannot run it.
 */
export function findUmoci(paths: RuntimeProgramPaths = {}): Program {
  if (paths.umoci !== undefined && paths.umoci !== '') return { path: paths.umoci, env: {} };
  return locate('umoci', paths) ?? { path: 'umoci', env: {} };
}

/** socat, or an error saying how to get it: attaching to a container's stdin needs it (its attach socket is SOCK_SEQPACKET, which Node cannot open). */
export function requireSocat(programs: RuntimePrograms): Program {
  if (programs.socat !== undefined) return programs.socat;
  throw new RuntimeUnavailableError(`attaching to a container's stdin needs socat (Debian package socat) on the site: ${howToGet(['socat'])}`);
}

/** HAProxy and dnsmasq, a runc site's Service data plane, or what is missing and how to get it. */
export function servicePrograms(programs: RuntimePrograms): { readonly haproxy: Program; readonly dnsmasq: Program } | { readonly missing: string } {
  const { haproxy, dnsmasq } = programs;
  if (haproxy !== undefined && dnsmasq !== undefined) return { haproxy, dnsmasq };
  const missing: ProgramName[] = [...(haproxy === undefined ? ['haproxy' as const] : []), ...(dnsmasq === undefined ? ['dnsmasq' as const] : [])];
  return { missing: `${missing.map((name) => `${name} (Debian package ${DEBIAN_PACKAGE[name]})`).join(' and ')}: ${howToGet(missing)}` };
}

/** The installation's root and the sidecar's entry point (the sidecar container runs `edgeplane sidecar` from them). */
export function installation(): { readonly dirs: readonly string[]; readonly main: string } {
  const modules = realpathSync(join(INSTALLATION, 'node_modules'));
  const dirs = modules.startsWith(`${INSTALLATION}/`) ? [INSTALLATION] : [INSTALLATION, modules];
  return { dirs, main: SIDECAR_MAIN };
}
