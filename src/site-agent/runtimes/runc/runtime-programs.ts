import { accessSync, constants, existsSync, readFileSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Program } from './containers/runc-containers.js';

/** The programs a runc site runs. */
export interface RuntimePrograms {
  readonly runc: Program & { readonly version: string };
  readonly conmon: Program;
  readonly catatonit: string;
  readonly ip: string;
  /** Unpacks images on import (only `edgeplane image import` runs it). */
  readonly umoci: Program;
  /** util-linux's mount and umount (Node cannot call mount(2)). */
  readonly mount: { readonly mount: string; readonly umount: string };
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
const NAMES = ['runc', 'conmon', 'catatonit', 'ip'] as const;
const DEBIAN_PACKAGE: Record<string, string> = { runc: 'runc', conmon: 'conmon', catatonit: 'catatonit', ip: 'iproute2', umoci: 'umoci', socat: 'socat' };

/** The runtime cannot run here: what is missing and how to get it. */
class RuntimeUnavailableError extends Error {}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function provisioned(): Record<string, { path?: string; env?: Record<string, string>; version?: string }> {
  try {
    return (JSON.parse(readFileSync(join(INSTALLATION, '.tools', 'env.json'), 'utf8')) as { tools?: Record<string, { path?: string; env?: Record<string, string> }> }).tools ?? {};
  } catch {
    return {};
  }
}

function onPath(name: string): string | undefined {
  for (const dir of [...(process.env['PATH'] ?? '').split(delimiter), '/usr/sbin', '/sbin']) {
    if (dir !== '' && executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/**
 * Finds runc, conmon, catatonit and ip: those unpacked into the installation's `.tools/` (by
 * `node scripts/provision-tools.mjs --for runtime`, which `npm start` runs), else on PATH.
 * Refuses without root, naming it; a missing program is named with its Debian package.
 */
export function findRuntimePrograms(): RuntimePrograms {
  if (process.getuid?.() !== 0) throw new RuntimeUnavailableError('the runc runtime needs root (network namespaces, cgroups, mounts); run the site agent as root or use --runtime simulated');
  const tools = provisioned();
  const found = new Map<string, { path: string; env: Record<string, string>; version: string }>();
  const missing: string[] = [];
  for (const name of NAMES) {
    const entry = tools[name];
    const path = entry?.path !== undefined && executable(entry.path) ? entry.path : onPath(name);
    if (path === undefined) missing.push(`${name} (Debian package ${DEBIAN_PACKAGE[name]})`);
    else found.set(name, { path, env: path === entry?.path ? (entry.env ?? {}) : {}, version: path === entry?.path ? String(entry.version ?? '') : '' });
  }
  if (missing.length > 0) {
    throw new RuntimeUnavailableError(`the runc runtime needs ${missing.join(', ')}: run "node scripts/provision-tools.mjs --for runtime" in ${INSTALLATION} or "apt-get install ${missing.map((m) => m.replace(/.*package (\S+)\)/, '$1')).join(' ')}"`);
  }
  const get = (name: string): { path: string; env: Record<string, string>; version: string } => found.get(name) as { path: string; env: Record<string, string>; version: string };
  return {
    runc: get('runc'),
    conmon: get('conmon'),
    catatonit: get('catatonit').path,
    ip: get('ip').path,
    umoci: findProgram('umoci') ?? { path: 'umoci', env: {} },
    mount: { mount: onPath('mount') ?? '/usr/bin/mount', umount: onPath('umount') ?? '/usr/bin/umount' },
  };
}

/** A program as the runtime finds it (the installation's `.tools/`, then PATH), or undefined. */
export function findProgram(name: string): Program | undefined {
  const entry = provisioned()[name];
  if (entry?.path !== undefined && executable(entry.path)) return { path: entry.path, env: entry.env ?? {} };
  const path = onPath(name);
  return path === undefined ? undefined : { path, env: {} };
}

/**
 * socat, which carries `kubectl attach -i` input to a container's conmon (its attach socket is
 * SOCK_SEQPACKET, which Node cannot open). Optional: a site runs without it and refuses only
 * attach with stdin, with this error's message (what to install).
 */
export function findSocat(): Program {
  const found = findProgram('socat');
  if (found !== undefined) return found;
  throw new RuntimeUnavailableError(`attaching to a container's stdin needs socat (Debian package ${DEBIAN_PACKAGE['socat']}) on the site: run "node scripts/provision-tools.mjs --for runtime" in ${INSTALLATION} or "apt-get install socat"`);
}

/**
 * HAProxy and dnsmasq, a runc site's Service data plane (the proxy and the cluster DNS
 * servers), or what is missing with how to get it: without them the site runs its pods but
 * its Services carry no traffic and no name resolves.
 */
export function findServicePrograms(): { readonly haproxy: Program; readonly dnsmasq: Program } | { readonly missing: string } {
  const haproxy = findProgram('haproxy');
  const dnsmasq = findProgram('dnsmasq');
  if (haproxy !== undefined && dnsmasq !== undefined) return { haproxy, dnsmasq };
  const missing = [...(haproxy === undefined ? ['haproxy (Debian package haproxy)'] : []), ...(dnsmasq === undefined ? ['dnsmasq (Debian package dnsmasq-base)'] : [])];
  return { missing: `${missing.join(' and ')}: run "node scripts/provision-tools.mjs --for runtime" in ${INSTALLATION} or "apt-get install haproxy dnsmasq-base"` };
}

/** The installation's root and the sidecar's entry point (the sidecar container runs `edgeplane sidecar` from them). */
export function installation(): { readonly dirs: readonly string[]; readonly main: string } {
  const modules = realpathSync(join(INSTALLATION, 'node_modules'));
  const dirs = modules.startsWith(`${INSTALLATION}/`) ? [INSTALLATION] : [INSTALLATION, modules];
  return { dirs, main: SIDECAR_MAIN };
}
