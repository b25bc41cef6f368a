import assert from 'node:assert/strict';
import { isStoreError } from '../errors.js';
import type { Store, WatchEvent } from '../types.js';

export interface PropertyTestOptions {
  readonly prefix: string;
  readonly operations: number;
  readonly writers: number;
  readonly keys: number;
  readonly random: () => number;
  readonly seed: number;
}

/**
 * Writers race random creates, updates (with right or stale revisions) and deletes on a small
 * key space; a watcher started before them applies every event to a map. At the end that map
 * must equal a list of the prefix, event revisions must strictly increase, and every event's
 * previous value must be what the map held. On failure the message names the seed.
 */
export async function runPropertyTest(store: Store, options: PropertyTestOptions): Promise<void> {
  const { prefix, random } = options;
  const start = await store.currentRevision();
  const controller = new AbortController();
  const replayed = new Map<string, { value: string; modRevision: number }>();
  const problems: string[] = [];
  let lastRevision = start;
  let eventCount = 0;
  let target = Number.POSITIVE_INFINITY;
  let reachedTarget: () => void = () => undefined;
  const reached = new Promise<void>((resolve) => (reachedTarget = resolve));

  const apply = (event: WatchEvent): void => {
    eventCount++;
    if (event.revision <= lastRevision) problems.push(`revision ${event.revision} after ${lastRevision}`);
    lastRevision = event.revision;
    const had = replayed.get(event.key);
    switch (event.type) {
      case 'ADDED':
        if (had !== undefined) problems.push(`ADDED ${event.key} that existed`);
        replayed.set(event.key, { value: event.kv.value, modRevision: event.kv.modRevision });
        break;
      case 'MODIFIED':
        if (had === undefined || had.value !== event.prev.value || had.modRevision !== event.prev.modRevision) {
          problems.push(`MODIFIED ${event.key}: prev does not match the replayed value`);
        }
        replayed.set(event.key, { value: event.kv.value, modRevision: event.kv.modRevision });
        break;
      case 'DELETED':
        if (had === undefined || had.value !== event.prev.value) problems.push(`DELETED ${event.key}: prev does not match`);
        replayed.delete(event.key);
        break;
    }
    if (event.revision >= target) reachedTarget();
  };

  const watching = (async () => {
    for await (const event of store.watch(prefix, { fromRevision: start, signal: controller.signal })) apply(event);
  })();

  let succeeded = 0;
  let remaining = options.operations;
  const writer = async (): Promise<void> => {
    while (remaining > 0) {
      remaining--;
      const key = `${prefix}k${Math.floor(random() * options.keys)}`;
      const roll = random();
      try {
        const current = await store.get(key);
        if (current === undefined) await store.create(key, `v${Math.floor(random() * 1e9)}`);
        else if (roll < 0.2) await store.delete(key, current.modRevision);
        else if (roll < 0.3) await store.delete(key);
        else if (roll < 0.4) await store.update(key, 'stale', current.modRevision - 1 < 1 ? 1 : current.modRevision - 1);
        else await store.update(key, `v${Math.floor(random() * 1e9)}`, current.modRevision);
        succeeded++;
      } catch (error) {
        if (!(isStoreError(error, 'Conflict') || isStoreError(error, 'KeyExists') || isStoreError(error, 'KeyNotFound'))) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: options.writers }, writer));

  const final = await store.list(prefix);
  target = final.revision;
  if (lastRevision >= target) reachedTarget();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    reached,
    new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`seed ${options.seed}: watcher did not reach revision ${target}`)), 30_000))),
  ]);
  clearTimeout(timer);
  controller.abort();
  await watching;

  assert.deepEqual(problems.slice(0, 10), [], `seed ${options.seed}`);
  assert.ok(succeeded > options.operations / 4, `seed ${options.seed}: only ${succeeded} operations succeeded`);
  assert.ok(eventCount >= succeeded, `seed ${options.seed}: ${eventCount} events for ${succeeded} writes`);
  const expected = new Map(final.items.map((kv) => [kv.key, { value: kv.value, modRevision: kv.modRevision }]));
  assert.deepEqual(new Map([...replayed].sort()), new Map([...expected].sort()), `seed ${options.seed}: replayed state differs`);
}
