import assert from 'node:assert/strict';
import { it } from 'node:test';
import { systemTimers } from '../../common/timers.js';
import { createLogger } from '../../observability/logger.js';
import type { PlacedObjects } from '../site-api-client.js';
import { PlacedServiceFeed, type PlacedObjectsFetch } from './placed-service-feed.js';

const cluster = { tenant: 'acme', namespace: 'default', name: 'vk' };
const list = (rv: number, names: readonly string[]): PlacedObjects => ({ resourceVersion: String(rv), items: names.map((name) => ({ cluster, sites: ['a'], object: { apiVersion: 'v1', kind: 'Service', metadata: { name } } })) });

it('lists both kinds, then long-polls from each list\'s version; a changed list is told, an equal one is not, a failure is retried', async () => {
  const calls: string[] = [];
  const answers: Record<string, Array<PlacedObjects | Error>> = {
    services: [list(5, ['web']), list(6, ['web']), new Error('connection reset'), list(7, ['web', 'db'])],
    endpoints: [list(5, [])],
  };
  let changes = 0;
  let release: () => void = () => undefined;
  const more = new Promise<void>((resolve) => (release = resolve));
  const fetch: PlacedObjectsFetch = async (kind, wait) => {
    calls.push(`${kind}${wait === undefined ? '' : `@${wait.after}`}`);
    const next = answers[kind]?.shift();
    if (next === undefined) {
      // No more changes: hold the poll until the feed closes.
      await new Promise<void>((resolve) => wait?.signal?.addEventListener('abort', () => resolve(), { once: true }));
      throw new Error('aborted');
    }
    if (next instanceof Error) throw next;
    if (kind === 'services' && next.items.length === 2) release();
    return next;
  };
  const feed = new PlacedServiceFeed(fetch, () => changes++, systemTimers(), createLogger({ level: 'silent' }), () => 0);
  await feed.start();
  assert.ok(feed.ready);
  await more;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(feed.items('services').map((i) => i.object.metadata.name), ['web', 'db']);
  // The first two lists, then the one that grew (rv 6 equals rv 5's items: not told).
  assert.equal(changes, 3);
  await feed.close();
  assert.deepEqual(calls.filter((c) => c.startsWith('services')), ['services', 'services@5', 'services@6', 'services@6', 'services@7']);
});
