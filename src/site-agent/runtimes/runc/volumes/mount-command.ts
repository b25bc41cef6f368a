import { execFile } from 'node:child_process';
import { VolumeError } from './volume-error.js';

/**
 * util-linux `mount` and `umount`: Node cannot call mount(2). The runtime is root; the paths
 * come from the caller (tests find them through `src/testing/tools.ts`).
 */
export class MountCommand {
  constructor(
    private readonly paths: { readonly mount: string; readonly umount: string },
  ) {}

  /** Mounts a fresh tmpfs at `dir` with `options` (e.g. `['nosuid', 'nodev', 'mode=0755', 'size=1048576']`). */
  tmpfs(dir: string, options: readonly string[]): Promise<void> {
    return this.run(this.paths.mount, ['-t', 'tmpfs', '-o', options.join(','), 'tmpfs', dir]);
  }

  /**
   * Binds `source` at `target` (`--bind`, not recursive) exactly as given: with
   * `--no-canonicalize`, so a `/proc/<pid>/fd/<fd>` source reaches the descriptor's file
   * through the kernel's magic link, never a path mount(8) would resolve from it.
   */
  bind(source: string, target: string): Promise<void> {
    return this.run(this.paths.mount, ['--no-canonicalize', '--bind', source, target]);
  }

  /** Unmounts `dir`; `lazy` detaches it at once even while something still uses it (`umount -l`). */
  unmount(dir: string, options: { readonly lazy?: boolean } = {}): Promise<void> {
    return this.run(this.paths.umount, [...(options.lazy === true ? ['-l'] : []), dir]);
  }

  private run(command: string, args: readonly string[]): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(command, args, { encoding: 'utf8', timeout: 10_000 }, (error, _stdout, stderr) => {
        if (error === null) resolve();
        else reject(new VolumeError('mount failed', `${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
      });
    });
  }
}
