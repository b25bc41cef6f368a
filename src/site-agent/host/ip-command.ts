import { execFile } from 'node:child_process';

/** `ip` (iproute2) failed: the command line and what it said. */
class IpCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
  ) {
    super(`ip ${args.join(' ')}: ${stderr.trim() || 'failed'}`);
  }
}

/** Runs iproute2's `ip`. */
export class IpCommand {
  constructor(readonly path: string) {}

  run(args: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(this.path, args, { encoding: 'utf8', timeout: 10_000 }, (error, stdout, stderr) => {
        if (error !== null) reject(new IpCommandError(args, stderr === '' ? error.message : stderr));
        else resolve(stdout);
      });
    });
  }

  /** Several commands in one process (`ip [-n ns] -batch -`): one fork for a whole setup, stopping at the first failure. */
  batch(commands: readonly string[], netns?: string): Promise<void> {
    const args = [...(netns === undefined ? [] : ['-n', netns]), '-batch', '-'];
    return new Promise((resolve, reject) => {
      const child = execFile(this.path, args, { encoding: 'utf8', timeout: 10_000 }, (error, _stdout, stderr) => {
        if (error !== null) reject(new IpCommandError([...args, '<<', commands.join('; ')], stderr === '' ? error.message : stderr));
        else resolve();
      });
      child.stdin?.end(commands.join('\n') + '\n');
    });
  }

  async namespaces(): Promise<Set<string>> {
    const output = await this.run(['netns', 'list']);
    return new Set(output.split('\n').map((line) => line.split(' ')[0] ?? '').filter((name) => name !== ''));
  }
}
