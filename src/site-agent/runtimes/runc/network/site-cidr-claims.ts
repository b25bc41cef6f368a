import { existsSync } from 'node:fs';
import { mkdir, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultSiteCidr, type Ipv4Cidr } from './ipv4-cidr.js';

/** Where the machine's site networks claim their default CIDRs (one file per /24, holding the site's namespace name). */
const CLAIMS_DIR = '/run/edgeplane/site-cidrs';
/** A claim whose namespace does not exist is taken over only after this long (its owner may be creating it). */
const STALE_AFTER_MS = 60_000;

/**
 * The default pod CIDR of a site network on this machine: the one it claimed before, or the
 * first 10.244.n.0/24 no other site network holds. Claims are files created exclusively in
 * /run (so two agents never take one, and a reboot forgets them all); a claim whose network
 * namespace is gone is taken over once it is a minute old.
 */
export async function claimSiteCidr(siteNetns: string, dir = CLAIMS_DIR): Promise<Ipv4Cidr> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const names = await readdir(dir);
  for (const name of names) {
    if ((await readFile(join(dir, name), 'utf8').catch(() => '')).trim() === siteNetns) return defaultSiteCidr(Number(name));
  }
  for (let index = 0; index < 256; index++) {
    const file = join(dir, String(index));
    try {
      const handle = await open(file, 'wx', 0o600);
      await handle.writeFile(siteNetns);
      await handle.close();
      return defaultSiteCidr(index);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
    const age = Date.now() - ((await stat(file).catch(() => undefined))?.mtimeMs ?? Date.now());
    if (holder !== '' && !existsSync(`/var/run/netns/${holder}`) && age > STALE_AFTER_MS) {
      await rm(file, { force: true });
      index--;
    }
  }
  throw new Error('all 256 default site networks (10.244.0.0/16) are claimed on this machine: give the site a --pod-cidr');
}

/** Gives up the site's claim (its network was removed). */
export async function releaseSiteCidr(siteNetns: string, dir = CLAIMS_DIR): Promise<void> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if ((await readFile(join(dir, name), 'utf8').catch(() => '')).trim() === siteNetns) await rm(join(dir, name), { force: true });
  }
}
