import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tool } from '../src/testing/tools.js';

export interface WrkJob {
  readonly url: string;
  readonly path: string;
  readonly method?: string;
  /** Request body; `{n}` is replaced by a counter unique per request. */
  readonly body?: string;
  readonly headers?: Record<string, string>;
  /**
   * Requests sent in turn instead of `body` (each with its own extra headers and body), e.g.
   * one per client identity; each wrk connection cycles through them.
   */
  readonly rotate?: ReadonlyArray<{ readonly headers: Record<string, string>; readonly body: string }>;
  readonly connections: number;
  readonly seconds: number;
  /** Run wrk inside this network namespace (`ip netns exec`, with iproute2's `ip` at `ip`). */
  readonly netns?: { readonly name: string; readonly ip: string };
}

export interface WrkResult {
  readonly rate: number;
  readonly p50: number;
  readonly p99: number;
  /** Answers with a status outside 2xx/3xx. */
  readonly errors: number;
  /** wrk's socket errors: connect, read, write and timeout together. */
  readonly socketErrors: number;
}

const luaString = (s: string): string => JSON.stringify(s);

/**
 * Load from `wrk` (Debian's package, unpacked into .tools/ by `npm run bench`'s provisioning),
 * a separate native process, so the figures are the server's and not a JavaScript client's.
 * Throws naming the tool and the command that provides it when wrk is missing.
 */
export async function runWrk(job: WrkJob): Promise<WrkResult> {
  const wrk = tool('wrk');
  const dir = mkdtempSync(join(tmpdir(), 'edgeplane-wrk-'));
  const script = join(dir, 'job.lua');
  const headers = Object.entries({ 'content-type': 'application/json', ...job.headers }).map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`).join(', ');
  const [before, after] = (job.body ?? '').split('{n}');
  const rotate = job.rotate ?? [];
  const rotation = rotate.map((r) => {
    const own = Object.entries({ 'content-type': 'application/json', ...job.headers, ...r.headers }).map(([k, v]) => `[${luaString(k)}]=${luaString(v)}`).join(', ');
    return `wrk.format(${luaString(job.method ?? 'GET')}, ${luaString(job.path)}, {${own}}, ${luaString(r.body)})`;
  });
  writeFileSync(
    script,
    rotate.length > 0
      ? `local requests = {}
local turn = 0
init = function(args)
  requests = {${rotation.join(',\n')}}
end
request = function()
  turn = turn % #requests + 1
  return requests[turn]
end
`
      : `local counter = 0
local id = 0
setup = function(thread) id = id + 1; thread:set("tid", id) end
request = function()
  counter = counter + 1
  local body = ${job.body === undefined ? 'nil' : after === undefined ? luaString(before ?? '') : `${luaString(before ?? '')} .. tostring(tid or 0) .. "x" .. counter .. ${luaString(after)}`}
  return wrk.format(${luaString(job.method ?? 'GET')}, ${luaString(job.path)}, {${headers}}, body)
end
`,
  );
  try {
    const argv = ['-t1', `-c${job.connections}`, `-d${job.seconds}s`, '--latency', '-s', script, job.url];
    const [file, args] = job.netns === undefined ? [wrk.path, argv] : [job.netns.ip, ['netns', 'exec', job.netns.name, wrk.path, ...argv]];
    const { stdout } = await promisify(execFile)(file, args, { env: { ...process.env, ...wrk.env } });
    return parseWrkOutput(stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The figures of wrk's `--latency` report: requests/s, the p50 and p99 latency in ms, the non-2xx/3xx answers, the socket errors. */
export function parseWrkOutput(stdout: string): WrkResult {
  const rate = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1]);
  const ms = (label: string): number => {
    const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(stdout);
    if (m === null) return Number.NaN;
    const value = Number(m[1]);
    return m[2] === 'us' ? value / 1000 : m[2] === 's' ? value * 1000 : value;
  };
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0);
  const errors = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
  return { rate, p50: ms('50'), p99: ms('99'), errors, socketErrors };
}
