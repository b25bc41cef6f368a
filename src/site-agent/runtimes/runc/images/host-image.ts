import { lstatSync, mkdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { makeMountPointBeneath } from '../../../host/index.js';
import type { BindMount } from '../oci/index.js';

/** The host's program folders a host-image container sees, read-only. */
const PROGRAM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * The parts of the host's /etc a program needs to run (users and groups, the dynamic linker's
 * cache, name service order, TLS roots, time zone, Debian's alternatives) — never keys,
 * shadow files or the host's own configuration. The pod's hosts, hostname and resolv.conf
 * are its own files, not the host's.
 */
const ETC_ESSENTIALS = [
  'passwd',
  'group',
  'nsswitch.conf',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'alternatives',
  'ssl/certs',
  'ca-certificates',
  'localtime',
  'protocols',
  'services',
  'mime.types',
  'os-release',
  'debian_version',
  'host.conf',
  'gai.conf',
];

/** What the host has at a path: a folder, a file, a symbolic link (with its target), or nothing. */
export type HostEntry = { readonly kind: 'dir' | 'file' } | { readonly kind: 'symlink'; readonly target: string } | undefined;

/** How a container's empty root becomes a read-only view of the host's programs. */
export interface HostImagePlan {
  /** Symbolic links to make in the root (merged-/usr hosts: `bin → usr/bin`). */
  readonly symlinks: readonly { readonly path: string; readonly target: string }[];
  /** Read-only binds of host folders and files, in mount order. */
  readonly binds: readonly BindMount[];
}

/**
 * The plan for a host-image container from what the host has: each program folder bound
 * read-only (or, where the host has it as a link, the same link), and the /etc essentials
 * bound read-only one by one. Pure: `host` answers for each path.
 */
export function hostImagePlan(host: (path: string) => HostEntry): HostImagePlan {
  const symlinks: { path: string; target: string }[] = [];
  const binds: BindMount[] = [];
  for (const dir of PROGRAM_DIRS) {
    const entry = host(dir);
    if (entry === undefined) continue;
    if (entry.kind === 'symlink') symlinks.push({ path: dir, target: entry.target });
    else if (entry.kind === 'dir') binds.push({ source: dir, destination: dir, readOnly: true });
  }
  for (const name of ETC_ESSENTIALS) {
    const path = `/etc/${name}`;
    const entry = host(path);
    if (entry !== undefined && entry.kind !== 'symlink') binds.push({ source: path, destination: path, readOnly: true });
  }
  return { symlinks, binds };
}

/** The host as {@link hostImagePlan} asks about it. */
export function inspectHost(path: string): HostEntry {
  try {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return { kind: 'symlink', target: readlinkSync(path) };
    return stat.isDirectory() ? { kind: 'dir' } : { kind: 'file' };
  } catch {
    return undefined;
  }
}

/**
 * Prepares an empty root folder for the plan: the links, and a mount point for each bind
 * (runc needs the destination to exist when the root is read-only), plus the folders every
 * container expects (/proc, /dev, /sys, /tmp, /etc). Mount points are made by descriptor and
 * never through a symlink of the root (the host's links, `lib → usr/lib`, may be absolute):
 * runc resolves such a destination inside the root itself.
 */
export function prepareRoot(rootfs: string, plan: HostImagePlan, extraMountPoints: readonly BindMount[] = []): void {
  for (const dir of ['proc', 'dev', 'sys', 'tmp', 'etc', 'run', 'var']) mkdirSync(join(rootfs, dir), { recursive: true });
  for (const link of plan.symlinks) {
    try {
      symlinkSync(link.target, join(rootfs, link.path));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  for (const bind of [...plan.binds, ...extraMountPoints]) makeMountPointBeneath(rootfs, bind.destination, inspectHost(bind.source)?.kind === 'dir' ? 'folder' : 'file');
}
