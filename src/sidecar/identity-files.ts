import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFilesAtomic } from '../common/atomic-file.js';
import { credentialPem, type IdentityMaterial, caBundlePem } from './identity-material.js';

/** Where the sidecar writes the pod's identity unless told otherwise (the seed's folder). */
export const DEFAULT_IDENTITY_DIR = '/svc/secrets/identity';

const KEY_FILE_MODE = 0o600;
/** Keys of an identity given to an owner: its group reads them too (the pod's fsGroup, or root's group for the sidecar itself). */
const GROUP_KEY_FILE_MODE = 0o640;
const CERTIFICATE_FILE_MODE = 0o644;

/**
 * Whom the identity files are given to (`--identity-owner <uid>:<gid>`): the workload's user,
 * or the pod's fsGroup, so a workload that does not run as root can read its key. Changing a
 * file's owner needs CAP_CHOWN.
 */
export interface IdentityOwner {
  readonly uid: number;
  readonly gid: number;
}

type IdentityFileName = 'server.key' | 'server.crt' | 'client.key' | 'client.crt' | 'server_ca.crt' | 'client_ca.crt';

/** `writeFilesAtomic`'s temporary name for one of the six files: `<name>.<pid>.tmp`. */
const TEMPORARY_FILE = /^(server|client)(\.key|\.crt|_ca\.crt)\.\d+\.tmp$/;

export interface IdentityFile {
  readonly name: IdentityFileName;
  readonly contents: string;
  readonly mode: number;
  readonly owner?: IdentityOwner;
}

/**
 * The six files of an identity, in the order they are written: the CA bundles first (a reader
 * that picks up a new certificate can already verify its chain), then each key before its
 * certificate. `.crt` files of the pod are chains, leaf first. Keys are 0600 and the writer's;
 * given an `owner`, every file is the owner's and keys are 0640 (its group reads them).
 */
export function identityFilesOf(material: IdentityMaterial, owner?: IdentityOwner): readonly IdentityFile[] {
  const key = owner === undefined ? KEY_FILE_MODE : GROUP_KEY_FILE_MODE;
  const files: IdentityFile[] = [
    { name: 'server_ca.crt', contents: caBundlePem(material, 'server_ca'), mode: CERTIFICATE_FILE_MODE },
    { name: 'client_ca.crt', contents: caBundlePem(material, 'client_ca'), mode: CERTIFICATE_FILE_MODE },
    { name: 'server.key', contents: credentialPem(material, 'server', 'key'), mode: key },
    { name: 'server.crt', contents: credentialPem(material, 'server', 'cert'), mode: CERTIFICATE_FILE_MODE },
    { name: 'client.key', contents: credentialPem(material, 'client', 'key'), mode: key },
    { name: 'client.crt', contents: credentialPem(material, 'client', 'cert'), mode: CERTIFICATE_FILE_MODE },
  ];
  return owner === undefined ? files : files.map((file) => ({ ...file, owner }));
}

/**
 * Writes the identity into `dir` (created if missing, mode 0755), each file atomically:
 * the six temporary files in the same folder written and fsynced together, renamed over the
 * old ones in {@link identityFilesOf}'s order, then the folder fsynced (`writeFilesAtomic`;
 * off the event loop). A reader sees the old or the new file, never part of one; all six are
 * durable once this resolves. Keys 0600, certificates 0644, whatever the umask; given an
 * `owner`, each temporary file is chowned before a byte is written and keys are 0640.
 */
export async function writeIdentityFiles(dir: string, material: IdentityMaterial, owner?: IdentityOwner): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFilesAtomic(dir, identityFilesOf(material, owner));
}

/**
 * Removes the temporary files an earlier run that crashed while writing left in `dir` (a
 * folder the sidecar may not have made, e.g. a pod's tmpfs kept across a container restart).
 * Nothing else in the folder is touched; a folder that does not exist yet is fine. Returns the
 * names removed.
 */
export async function removeStaleTemporaryFiles(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const stale = names.filter((name) => TEMPORARY_FILE.test(name));
  await Promise.all(stale.map((name) => rm(join(dir, name), { force: true })));
  return stale;
}
