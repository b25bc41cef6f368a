import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { StoreConfig } from '../open-store.js';
import type { Store } from '../types.js';
import { seededRandom } from './watch-helpers.js';

const WRITER = fileURLToPath(new URL('./crash-writer.js', import.meta.url));

interface Ack {
  readonly key: string;
  readonly revision: number;
  readonly value: string;
}

export interface CrashRoundHooks {
  /** Called while the writer runs, at a random moment: crash something with SIGKILL. */
  crash(writerPid: number): Promise<void>;
  /** After the crash: bring the store back and open a client on it. */
  reopen(): Promise<Store>;
}

/**
 * One round: start the writer, wait for acknowledgements, crash at a random moment, then
 * check that every acknowledged write survived and the revision did not go backwards.
 * Returns the revision seen after the crash and the number of acknowledgements.
 */
export async function crashRound(
  config: StoreConfig,
  prefix: string,
  seed: number,
  lastRevision: number,
  hooks: CrashRoundHooks,
): Promise<{ revision: number; acks: number }> {
  const random = seededRandom(seed);
  const child = spawn(process.execPath, [WRITER, JSON.stringify(config), prefix], { stdio: ['ignore', 'pipe', 'pipe'] });
  const acks: Ack[] = [];
  let buffered = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) {
      const [tag, key, revision, value] = line.split(' ');
      if (tag === 'ack' && key !== undefined && revision !== undefined && value !== undefined) {
        acks.push({ key, revision: Number(revision), value });
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 20_000;
  while (acks.length < 5 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 10));
  assert.ok(acks.length >= 5, `the writer acknowledged nothing within 20 s: ${stderr}`);
  await new Promise((r) => setTimeout(r, 20 + Math.floor(random() * 400)));
  await hooks.crash(child.pid ?? 0);
  child.kill('SIGKILL');
  await exited;

  const store = await hooks.reopen();
  try {
    const revision = await store.currentRevision();
    const maxAcked = Math.max(...acks.map((a) => a.revision));
    assert.ok(revision >= maxAcked, `revision ${revision} is below an acknowledged write at ${maxAcked}`);
    assert.ok(revision >= lastRevision, `revision went backwards: ${revision} after ${lastRevision}`);
    const latest = new Map<string, Ack>();
    for (const ack of acks) latest.set(ack.key, ack);
    for (const ack of latest.values()) {
      const kv = await store.get(ack.key);
      assert.ok(kv !== undefined, `acknowledged key ${ack.key} (revision ${ack.revision}) is gone`);
      assert.ok(kv.modRevision >= ack.revision, `${ack.key} is at ${kv.modRevision}, below its acknowledged ${ack.revision}`);
      if (kv.modRevision === ack.revision) assert.equal(kv.value, ack.value);
    }
    return { revision, acks: acks.length };
  } finally {
    await store.close();
  }
}
