import { mkdir, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFilesAtomic } from '../common/atomic-file.js';
import { credentialPem, type IdentityMaterial, caBundlePem } from './identity-material.js';

/** Where the sidecar writes the pod's identity unless told otherwise (the seed's folder). */
export const DEFAULT_IDENTITY_DIR = '/svc/secrets/identity';

const KEY_FILE_MODE = 0o600;
const CERTIFICATE_FILE_MODE = 0o644;

type IdentityFileName = 'server.key' | 'server.crt' | 'client.key' | 'client.crt' | 'server_ca.crt' | 'client_ca.crt';

/** `writeFilesAtomic`'s temporary name for one of the six files: `<name>.<pid>.tmp`. */
const TEMPORARY_FILE = /^(server|client)(\.key|\.crt|_ca\.crt)\.\d+\.tmp$/;

export interface IdentityFile {
  readonly name: IdentityFileName;
  readonly contents: string;
  readonly mode: number;
}

/**
 * The six files of an identity, in the order they are written: the CA bundles first (a reader
 * that picks up a new certificate can already verify its chain), then each key before its
 * certificate. `.crt` files of the pod are chains, leaf first.
 */
export function identityFilesOf(material: IdentityMaterial): readonly IdentityFile[] {
  return [
    { name: 'server_ca.crt', contents: caBundlePem(material, 'server_ca'), mode: CERTIFICATE_FILE_MODE },
    { name: 'client_ca.crt', contents: caBundlePem(material, 'client_ca'), mode: CERTIFICATE_FILE_MODE },
    { name: 'server.key', contents: credentialPem(material, 'server', 'key'), mode: KEY_FILE_MODE },
    { name: 'server.crt', contents: credentialPem(material, 'server', 'cert'), mode: CERTIFICATE_FILE_MODE },
    { name: 'client.key', contents: credentialPem(material, 'client', 'key'), mode: KEY_FILE_MODE },
    { name: 'client.crt', contents: credentialPem(material, 'client', 'cert'), mode: CERTIFICATE_FILE_MODE },
  ];
}

/**
 * Writes the identity into `dir` (created if missing, mode 0755), each file atomically:
 * the six temporary files in the same folder written and fsynced together, renamed over the
 * old ones in {@link identityFilesOf}'s order, then the folder fsynced (`writeFilesAtomic`;
 * off the event loop). A reader sees the old or the new file, never part of one; all six are
 * durable once this resolves. Keys 0600, certificates 0644, whatever the umask.
 */
export async function writeIdentityFiles(dir: string, material: IdentityMaterial): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o755 });
  await writeFilesAtomic(dir, identityFilesOf(material));
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
