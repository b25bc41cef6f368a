import { connect } from 'node:net';

/**
 * One command on an HAProxy CLI socket (the worker's stats socket or the master CLI): a
 * connection per command, the reply read until HAProxy closes it (non-interactive mode).
 */
export function haproxyCommand(socketPath: string, command: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let reply = '';
    socket.setEncoding('utf8');
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`${command}: no answer from ${socketPath} within ${timeoutMs} ms`)));
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(reply));
    socket.end(`${command}\n`);
  });
}

/** Replies of the runtime API that mean success (2.6): the rest of a non-empty reply is an error message. */
const SUCCESS = new Set(['', 'New server registered.', 'Server deleted.', 'Done.']);

/** Runs a runtime API command; throws with HAProxy's message when it refused it. */
export async function runtimeCommand(socketPath: string, command: string): Promise<void> {
  const reply = (await haproxyCommand(socketPath, command)).trim();
  if (!SUCCESS.has(reply)) throw new Error(`${command}: ${reply}`);
}

/** The master's reload counters, from the master CLI's `show proc`. */
export async function masterReloads(masterSocket: string): Promise<{ readonly reloads: number; readonly failed: number; readonly workers: readonly number[] }> {
  const reply = await haproxyCommand(masterSocket, 'show proc');
  const master = /^\d+\s+master\s+(\d+)\s+\[failed: (\d+)\]/m.exec(reply);
  if (master === null) throw new Error(`unexpected "show proc" reply: ${reply.slice(0, 200)}`);
  const workers = [...reply.matchAll(/^(\d+)\s+worker\s/gm)].map((m) => Number(m[1]));
  return { reloads: Number(master[1]), failed: Number(master[2]), workers };
}
