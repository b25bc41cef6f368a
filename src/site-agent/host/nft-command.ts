import { execFile } from 'node:child_process';
import type { Program } from './programs.js';

/** `nft` (nftables) failed: what it was asked and what it said. */
class NftCommandError extends Error {}

/** One item of `nft -j list ruleset` (libnftables-json(5)): a table, chain, set, counter, rule… keyed by its kind. */
export type NftJsonItem = Readonly<Record<string, Readonly<Record<string, unknown>>>>;

/**
 * Runs nftables' `nft` inside a network namespace (`ip netns exec`): a script applied as one
 * transaction (`nft -f -`: all of it or nothing), and the namespace's ruleset read as JSON.
 */
export class NftCommand {
  constructor(
    private readonly nft: Program,
    private readonly ip: string,
  ) {}

  /** Applies `script` in `netns` atomically; rejects with nft's own error lines (which name the script's line). */
  apply(netns: string, script: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = this.run(netns, ['-f', '-'], (error, _stdout, stderr) => {
        if (error === null) resolve();
        else reject(new NftCommandError(`nft -f in ${netns}: ${stderr.trim().split('\n').slice(0, 12).join(' | ') || error.message}`));
      });
      child.stdin?.end(script);
    });
  }

  /** Every table, chain, set, counter and rule of `netns` (`nft -j list ruleset`). */
  ruleset(netns: string): Promise<NftJsonItem[]> {
    return new Promise((resolve, reject) => {
      this.run(netns, ['-j', 'list', 'ruleset'], (error, stdout, stderr) => {
        if (error !== null) return reject(new NftCommandError(`nft list ruleset in ${netns}: ${stderr.trim() || error.message}`));
        try {
          const parsed = JSON.parse(stdout === '' ? '{"nftables":[]}' : stdout) as { nftables?: NftJsonItem[] };
          resolve(parsed.nftables ?? []);
        } catch (parseError) {
          reject(new NftCommandError(`nft list ruleset in ${netns} printed no JSON: ${parseError instanceof Error ? parseError.message : String(parseError)}`));
        }
      });
    });
  }

  private run(netns: string, args: readonly string[], done: (error: Error | null, stdout: string, stderr: string) => void): ReturnType<typeof execFile> {
    const options = { encoding: 'utf8' as const, timeout: 20_000, maxBuffer: 64 << 20, env: { ...process.env, ...this.nft.env } };
    return execFile(this.ip, ['netns', 'exec', netns, this.nft.path, ...args], options, done);
  }
}
