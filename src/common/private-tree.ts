import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes a process's home private to its user: creates `root` (0700) when missing, then gives
 * every folder below it mode 0700 and every file 0600 where group or others had any access
 * (symbolic links are neither followed nor changed). Returns the paths it changed, so the
 * caller can say so; an error (a path it may not change) is thrown with the path. Entries of
 * `root` named in `except` are left alone (a runtime's trees, whose files have the modes the
 * containers need; their own top folder is kept private by whoever made it). `traversableRoot`:
 * the root itself is 0711 — others may pass, never list — as containerd's /var/lib/containerd,
 * for a runtime whose user-namespaced containers must reach their roots below it.
 */
export function makeTreePrivate(root: string, except: readonly string[] = [], traversableRoot = false): string[] {
  mkdirSync(root, { recursive: true, mode: 0o700 });
  const changed: string[] = [];
  if (traversableRoot) {
    const mode = lstatSync(root).mode;
    if ((mode & 0o066) !== 0) changed.push(root);
    if ((mode & 0o077) !== 0o011) chmodSync(root, 0o711);
  }
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) return;
    if (stat.isDirectory() && path === root && traversableRoot) {
      for (const name of readdirSync(path)) if (!except.includes(name)) visit(join(path, name));
    } else if (stat.isDirectory()) {
      if ((stat.mode & 0o077) !== 0) {
        chmodSync(path, 0o700);
        changed.push(path);
      }
      for (const name of readdirSync(path)) if (path !== root || !except.includes(name)) visit(join(path, name));
    } else if ((stat.mode & 0o077) !== 0) {
      chmodSync(path, 0o600);
      changed.push(path);
    }
  };
  visit(root);
  return changed;
}
