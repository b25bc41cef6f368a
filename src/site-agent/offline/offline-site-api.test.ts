import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { systemTimers } from '../../common/timers.js';
import { createLogger } from '../../observability/logger.js';
import type { BootstrapToken, PodRef, PodWatchEvent } from '../../site-api/site-api-types.js';
import { podKeyOf } from '../pod-key.js';
import type { PodRuntime } from '../pod-runtime.js';
import { runPodWatch } from '../pod-watch-loop.js';
import type { PlacedObjectKind, PlacedObjects } from '../site-api-client.js';
import { SiteApiError } from '../site-api-error.js';
import { OfflineSiteApi, type SiteApiReads } from './offline-site-api.js';

const logger = createLogger({ level: 'silent' });
const root = mkdtempSync(join(tmpdir(), 'edgeplane-offline-api-'));
after(() => rmSync(root, { recursive: true, force: true }));
const cluster: ClusterRef = { tenant: 'acme', namespace: 'shop', name: 'vk' };
const pod = (name: string, rv = '5'): KubeObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'shop', uid: `uid-${name}`, resourceVersion: rv }, spec: { nodeName: 'n0' } });
const SECRET = 's3cr3t-value-of-the-site';
const TOKEN = 'bootstrap-token-of-the-pod';
const secrets: PlacedObjects = {
  resourceVersion: '40',
  items: [{ cluster, sites: ['edge'], object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'db', namespace: 'shop' }, stringData: { password: SECRET } } }],
};

/** A control plane that answers (a list of pods and placed objects) or does not (connection refused). */
class FakeControlPlane implements SiteApiReads {
  up = true;
  pods: KubeObject[] = [];
  readonly objects = new Map<PlacedObjectKind, PlacedObjects>([['secrets', secrets]]);
  watches = 0;

  async watchPods(resourceVersion: string | undefined, signal: AbortSignal): Promise<AsyncIterable<PodWatchEvent>> {
    await Promise.resolve();
    if (!this.up) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    this.watches++;
    const pods = this.pods;
    return (async function* (): AsyncGenerator<PodWatchEvent> {
      if (resourceVersion === undefined) for (const object of pods) yield { type: 'ADDED' as const, cluster, object };
      yield { type: 'BOOKMARK' as const, object: { apiVersion: 'v1', kind: 'Pod', metadata: { resourceVersion: '50' } } };
      // A watch stays open until the agent leaves.
      await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    })();
  }

  async podIdentityToken(pod: PodRef): Promise<BootstrapToken> {
    await Promise.resolve();
    if (!this.up) throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    return { token: `${TOKEN}-${pod.uid}`, expiresAt: '2030-01-01T00:00:00Z', pod: pod.name, site: 'edge' } as unknown as BootstrapToken;
  }

  async placedObjects(kind: PlacedObjectKind): Promise<PlacedObjects> {
    await Promise.resolve();
    if (!this.up) throw new SiteApiError(503, 'ServiceUnavailable', 'the store is unavailable');
    return this.objects.get(kind) ?? { resourceVersion: '40', items: [] };
  }
}

/** A runtime that records what it is told; a pod applied again with its uid is kept (as the runc runtime keeps its worker). */
class RecordingRuntime implements Pick<PodRuntime, 'apply' | 'remove' | 'keys' | 'listed'> {
  readonly pods = new Map<string, string>();
  readonly log: string[] = [];
  apply(c: ClusterRef, object: KubeObject): void {
    const key = podKeyOf(c, object.metadata.name ?? '');
    if (this.pods.get(key) !== object.metadata.uid) this.log.push(`start ${object.metadata.name ?? ''}`);
    this.pods.set(key, object.metadata.uid ?? '');
  }
  remove(key: string): void {
    if (this.pods.delete(key)) this.log.push(`remove ${key}`);
  }
  keys(): IterableIterator<string> {
    return this.pods.keys();
  }
  listed(): void {
    this.log.push('listed');
  }
}

async function until(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(condition(), `timed out waiting for ${what}`);
}

/** Runs the pod watch loop over the cache until `done`, with quick retries. */
function watch(api: OfflineSiteApi, runtime: RecordingRuntime): { stop: () => Promise<void> } {
  const abort = new AbortController();
  const running = runPodWatch({
    client: api,
    runtime: runtime as unknown as PodRuntime,
    forget: () => undefined,
    timers: systemTimers(),
    logger,
    signal: abort.signal,
    random: () => 0,
  });
  return {
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

describe('offline site API', () => {
  it('persists what the control plane sent and serves it when the control plane does not answer; the relist keeps the pods it brings back', async () => {
    const dir = join(root, 'site');
    const live = new FakeControlPlane();
    live.pods = [pod('web-1'), pod('web-2')];
    // First life: everything from the control plane, persisted.
    const first = new OfflineSiteApi(live, dir, systemTimers(), logger);
    const runtime = new RecordingRuntime();
    const loop = watch(first, runtime);
    await until('the pods', () => runtime.pods.size === 2);
    assert.deepEqual(await first.placedObjects('secrets'), secrets);
    const web1: PodRef = { cluster, name: 'web-1', uid: 'uid-web-1' };
    assert.equal((await first.podIdentityToken(web1)).token, `${TOKEN}-uid-web-1`);
    await loop.stop();
    await first.close();
    for (const name of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, name));
      assert.ok(!bytes.includes(SECRET) && !bytes.includes(TOKEN), `${name} holds a secret`);
    }

    // Restart with the control plane down: the persisted pods run, the placed objects answer.
    live.up = false;
    const second = new OfflineSiteApi(live, dir, systemTimers(), logger);
    assert.deepEqual(second.restored(), { pods: 2, kinds: ['secrets'] });
    const restarted = new RecordingRuntime();
    const offlineLoop = watch(second, restarted);
    await until('the persisted pods', () => restarted.pods.size === 2);
    assert.deepEqual((await second.placedObjects('secrets')).items, secrets.items);
    assert.equal((await second.podIdentityToken(web1)).token, `${TOKEN}-uid-web-1`, 'the sidecar of a restarted pod gets no token');
    await assert.rejects(second.podIdentityToken({ cluster, name: 'web-2', uid: 'uid-web-2' }), /ECONNREFUSED/, 'a pod never given a token gets one offline');
    await assert.rejects(second.placedObjects('secrets', { after: '40', timeoutSeconds: 30 }), /unavailable/, 'a long poll is answered from the cache');
    assert.ok(!restarted.log.includes('listed'), 'the persisted list counted as the control plane\'s (orphans collected)');

    // The link returns: the relist keeps web-1 and web-2 (same uid), drops what is gone, adds what is new.
    live.pods = [pod('web-1'), pod('web-3')];
    live.up = true;
    await until('the relist', () => restarted.log.includes('listed'));
    await offlineLoop.stop();
    assert.deepEqual(restarted.log, ['start web-1', 'start web-2', 'start web-3', 'listed', 'remove acme/shop/vk/web-2']);
    await second.close();
    const third = new OfflineSiteApi(live, dir, systemTimers(), logger);
    assert.deepEqual(third.restored().pods, 2, 'the relist was not persisted');
    await third.close();
  });

  it('serves the persisted state once the control plane has not answered in time, and only the first time', async () => {
    const dir = join(root, 'slow');
    const live = new FakeControlPlane();
    live.pods = [pod('a')];
    const first = new OfflineSiteApi(live, dir, systemTimers(), logger);
    const runtime = new RecordingRuntime();
    const loop = watch(first, runtime);
    await until('the pod', () => runtime.pods.size === 1);
    await loop.stop();
    await first.close();
    const hanging: SiteApiReads = {
      podIdentityToken: () => new Promise(() => undefined),
      watchPods: (_rv, signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
      placedObjects: () => new Promise(() => undefined),
    };
    const second = new OfflineSiteApi(hanging, dir, systemTimers(), logger, { answerWithinMs: 50 });
    const events: string[] = [];
    for await (const event of await second.watchPods(undefined, new AbortController().signal)) events.push(event.type);
    assert.deepEqual(events, ['ADDED', 'ERROR']);
    const abort = new AbortController();
    const next = second.watchPods(undefined, abort.signal);
    abort.abort();
    await assert.rejects(next, /aborted/, 'the persisted pods replayed twice');
    await second.close();
  });

  it('does not stand in for a refusal (4xx): the agent is not allowed, whatever it persisted', async () => {
    const dir = join(root, 'refused');
    const live = new FakeControlPlane();
    const first = new OfflineSiteApi(live, dir, systemTimers(), logger);
    await first.placedObjects('secrets');
    await first.close();
    const forbidden: SiteApiReads = {
      podIdentityToken: () => Promise.reject(new SiteApiError(403, 'Forbidden', 'no')),
      watchPods: () => Promise.reject(new SiteApiError(403, 'Forbidden', 'no')),
      placedObjects: () => Promise.reject(new SiteApiError(403, 'Forbidden', 'no')),
    };
    const second = new OfflineSiteApi(forbidden, dir, systemTimers(), logger);
    await assert.rejects(second.placedObjects('secrets'), /no/);
    await second.close();
  });
});
