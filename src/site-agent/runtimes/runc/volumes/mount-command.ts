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

  unmount(dir: string): Promise<void> {
    return this.run(this.paths.umount, [dir]);
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
