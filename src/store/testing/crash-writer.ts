/**
 * A child process for the crash test: opens the store given as JSON in argv[2] and writes
 * under the prefix argv[3] with 8 writers in flight, printing `ack <key> <modRevision> <value>`
 * on stdout after each write resolves (stdout to a pipe is synchronous on Linux). It runs
 * until it is killed. Failed writes (the store went away) are retried, never acknowledged.
 */
import { openStore, type StoreConfig } from '../open-store.js';

const config = JSON.parse(process.argv[2] ?? '{}') as StoreConfig;
const prefix = process.argv[3] ?? '/crash/';
const store = openStore(config);

async function writer(id: number): Promise<void> {
  const revisions = new Map<string, number>();
  for (let i = 0; ; i++) {
    const key = `${prefix}w${id}-${i % 40}`;
    const value = `${id}:${i}`;
    try {
      const known = revisions.get(key);
      const kv = known === undefined ? await store.create(key, value) : await store.update(key, value, known);
      revisions.set(key, kv.modRevision);
      process.stdout.write(`ack ${key} ${kv.modRevision} ${value}\n`);
    } catch {
      // Unknown outcome: forget what we knew of the key and read it again before writing.
      revisions.delete(key);
      const current = await store.get(key).catch(() => undefined);
      if (current !== undefined) revisions.set(key, current.modRevision);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

await Promise.all(Array.from({ length: 8 }, (_, i) => writer(i)));
