import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { tool, toolPath } from '../../src/testing/tools.js';

/** The nftables table whose presence is the cut (policy drop both ways but loopback). */
const CUT_TABLE = 'autonomy_cut';
const CUT_RULESET = `table inet ${CUT_TABLE} {
  chain in { type filter hook input priority -300; policy drop; iif "lo" accept; }
  chain out { type filter hook output priority -300; policy drop; oif "lo" accept; }
}
`;

/**
 * The site's link to the control plane: a network namespace of its own for the agent process,
 * joined to this machine by a veth pair on a /30 of 10.199.0.0/16 that no interface here uses.
 * The server listens on `hostAddress`; the agent, inside `netns`, reaches it over the veth.
 * `cut` drops every packet in the namespace silently (no reset, no ICMP: a dead link, not a
 * refused one); `restore` removes that drop. Only the agent's own traffic crosses it: the
 * site's pods, HAProxy and name servers live in the site's network namespace, which the agent
 * makes and which is not routed anywhere.
 */
export class SiteLink {
  private cutSince: number | undefined;

  private constructor(
    readonly netns: string,
    private readonly hostVeth: string,
    readonly hostAddress: string,
    readonly siteAddress: string,
  ) {}

  static create(): SiteLink {
    const tag = randomBytes(3).toString('hex');
    const used = execFileSync(toolPath('ip'), ['-4', '-o', 'addr', 'show'], { encoding: 'utf8' });
    let third = 0;
    for (let attempt = 0; attempt < 50; attempt++) {
      third = randomBytes(1)[0] ?? 0;
      if (!used.includes(`10.199.${third}.`)) break;
    }
    const link = new SiteLink(`epa-${tag}`, `epa${tag}h`, `10.199.${third}.1`, `10.199.${third}.2`);
    try {
      link.setUp(`epa${tag}n`);
    } catch (error) {
      link.remove();
      throw error;
    }
    return link;
  }

  private setUp(siteVeth: string): void {
    ip(['netns', 'add', this.netns]);
    ip(['link', 'add', this.hostVeth, 'type', 'veth', 'peer', 'name', siteVeth]);
    ip(['link', 'set', siteVeth, 'netns', this.netns]);
    ip(['addr', 'add', `${this.hostAddress}/30`, 'dev', this.hostVeth]);
    ip(['link', 'set', this.hostVeth, 'up']);
    ip(['-n', this.netns, 'link', 'set', 'lo', 'up']);
    ip(['-n', this.netns, 'addr', 'add', `${this.siteAddress}/30`, 'dev', siteVeth]);
    ip(['-n', this.netns, 'link', 'set', siteVeth, 'up']);
  }

  /** The file `nsenter --net=` joins. */
  get netnsPath(): string {
    return `/run/netns/${this.netns}`;
  }

  get isCut(): boolean {
    return this.cutSince !== undefined;
  }

  cut(): void {
    nft(this.netns, ['-f', '-'], CUT_RULESET);
    this.cutSince = Date.now();
  }

  restore(): void {
    if (this.cutSince === undefined) return;
    nft(this.netns, ['delete', 'table', 'inet', CUT_TABLE]);
    this.cutSince = undefined;
  }

  /** Removes the drop, the veth pair (deleting one end deletes both) and the namespace; each step whatever the others did. */
  remove(): void {
    const attempts: Array<() => void> = [
      () => this.restore(),
      () => ip(['link', 'delete', this.hostVeth]),
      () => ip(['netns', 'delete', this.netns]),
    ];
    for (const attempt of attempts) {
      try {
        attempt();
      } catch {
        // already gone (or never made): the next step still runs
      }
    }
    this.cutSince = undefined;
  }

  /** Whether anything of it is still on the machine (for the clean-up check). */
  leftovers(): string[] {
    const left: string[] = [];
    if (existsSync(this.netnsPath)) left.push(`network namespace ${this.netns}`);
    if (existsSync(`/sys/class/net/${this.hostVeth}`)) left.push(`veth ${this.hostVeth}`);
    return left;
  }
}

function ip(args: readonly string[]): void {
  execFileSync(toolPath('ip'), args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** nft (with the libraries it was unpacked with) in network namespace `netns`. */
function nft(netns: string, args: readonly string[], input?: string): void {
  const found = tool('nft');
  execFileSync(toolPath('ip'), ['netns', 'exec', netns, found.path, ...args], { env: { ...process.env, ...found.env }, input: input ?? '', stdio: ['pipe', 'ignore', 'pipe'] });
}
