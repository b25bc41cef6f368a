import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { EventRecorder } from '../events/event-recorder.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { openMemoryStore } from '../../store/memory/index.js';
import { PrefixCache } from '../../store/prefix-cache.js';
import type { Store } from '../../store/types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { PlacementConfigIndex } from './config-index.js';
import { PlacementEngine } from './placement-engine.js';
import type { SiteState } from './site-work-rule.js';
import { asKeyValues, putEvent, siteEntry, virtualK8sEntry, virtualSiteEntry, type ConfigEntry } from './testing/config-fixtures.js';

const vk1: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
const vk2: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk2' };
const vkb: ClusterRef = { tenant: 'beta', namespace: 'default', name: 'vkb' };
const DEPLOYMENTS = { group: 'apps', resource: 'deployments' };
const CONFIGMAPS = { group: '', resource: 'configmaps' };

let uid = 0;
const deployment = (annotations?: Record<string, string>, generation = 1): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', uid: `uid-${++uid}`, generation, ...(annotations === undefined ? {} : { annotations }) },
});

async function eventually(what: string, check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

class FakeStates {
  readonly states = new Map<string, SiteState>();
  private readonly handlers: Array<(site: string) => void> = [];
  stateOf = (site: string): SiteState | undefined => this.states.get(site);
  onChange(handler: (site: string) => void): void {
    this.handlers.push(handler);
  }
  set(site: string, state: SiteState): void {
    this.states.set(site, state);
    for (const h of this.handlers) h(site);
  }
}

describe('placement engine over a memory store', () => {
  let store: Store;
  let cache: PrefixCache;
  let index: PlacementConfigIndex;
  let engine: PlacementEngine;
  const states = new FakeStates();
  const recorded: Array<{ cluster: ClusterRef; object: string; type: string; reason: string; message: string }> = [];
  const recorder: EventRecorder = { record: (cluster, object, type, reason, message) => recorded.push({ cluster, object: object.metadata.uid ?? '', type, reason, message }) };
  const changed: string[] = [];

  const write = async (entry: ConfigEntry): Promise<void> => {
    const found = await store.get(entry.key);
    if (found === undefined) await store.create(entry.key, entry.value);
    else await store.update(entry.key, entry.value, found.modRevision);
  };
  /** Writes, then waits until the index has seen the write (the cache watches asynchronously). */
  const apply = async (entry: ConfigEntry): Promise<void> => {
    const generation = index.generation;
    await write(entry);
    await eventually(`the index saw ${entry.key}`, () => index.generation > generation);
  };
  const names = (cluster: ClusterRef, object: KubeObject, resource = DEPLOYMENTS): string[] => engine.sitesFor(resource, cluster, object).map((s) => s.name);

  before(async () => {
    store = openMemoryStore();
    for (const entry of [
      siteEntry('re-paris', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu' } }),
      siteEntry('re-nyc', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'us' } }),
      siteEntry('ce-shop', 'CUSTOMER_EDGE', { labels: { store: 'yes' } }),
      siteEntry('ce-beta', 'CUSTOMER_EDGE', { tenant: 'beta', labels: { store: 'yes' } }),
      virtualSiteEntry('svc-io', 'svc-io-shared', 'all-regional-edges', 'REGIONAL_EDGE', ['svc.io/siteType=svc-io-re']),
      virtualSiteEntry('svc-io', 'svc-io-shared', 'all-stores', 'CUSTOMER_EDGE', ['store=yes']),
      virtualSiteEntry('acme', 'shared', 'eu', 'REGIONAL_EDGE', ['svc.io/region=eu']),
      virtualK8sEntry('acme', 'default', 'vk1', { vsiteRefs: [{ tenant: 'acme', namespace: 'shared', name: 'eu' }] }),
      virtualK8sEntry('acme', 'default', 'vk2', { vsiteRefs: [{ tenant: 'svc-io', namespace: 'svc-io-shared', name: 'all-regional-edges' }] }),
      virtualK8sEntry('beta', 'default', 'vkb', { vsiteRefs: [{ tenant: 'svc-io', namespace: 'svc-io-shared', name: 'all-stores' }] }),
    ]) {
      await write(entry);
    }
    index = new PlacementConfigIndex();
    cache = new PrefixCache(store, '/config/', undefined, index);
    engine = new PlacementEngine({ index, siteStates: states, recorder, defer: (flush) => flush() });
    engine.onClusterChange((cluster) => changed.push(cluster.name));
    await cache.start();
  });
  after(async () => {
    cache.stop();
    await store.close();
  });

  it('placement engine places by the default, annotations, and memoises per annotation values', () => {
    assert.deepEqual(names(vk1, deployment()), ['re-paris']);
    assert.deepEqual(names(vk2, deployment()), ['re-nyc', 're-paris']);
    assert.deepEqual(names(vk1, deployment({ 'svc.io/sites': 'system/ce-shop' })), ['ce-shop']);
    assert.deepEqual(names(vkb, deployment()), ['ce-beta']);
    const first = engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'svc-io-shared/all-regional-edges' }));
    const second = engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'svc-io-shared/all-regional-edges' }));
    assert.equal(first, second, 'objects with the same placement share one memoised result');
    assert.ok(Object.isFrozen(first) && Object.isFrozen(first[0]));
    assert.deepEqual(first[0], { name: 're-nyc', type: 'REGIONAL_EDGE', labels: { 'svc.io/siteName': 're-nyc', 'svc.io/siteType': 'svc-io-re', 'svc.io/region': 'us' } });
  });

  it('placement engine moves a workload when a site is relabelled and notifies the clusters using it', async () => {
    assert.deepEqual(names(vk1, deployment()), ['re-paris']);
    assert.deepEqual(names(vkb, deployment()), ['ce-beta']);
    changed.length = 0;
    await apply(siteEntry('re-nyc', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu' } }));
    assert.deepEqual(names(vk1, deployment()), ['re-nyc', 're-paris']);
    assert.ok(changed.includes('vk1'));
    assert.ok(!changed.includes('vkb'), 'a cluster whose placements do not involve the site is not told');
    assert.deepEqual(names(vk2, deployment()), ['re-nyc', 're-paris'], 'vk2 asks again, as its controllers do when told');
    changed.length = 0;
    await apply(siteEntry('re-paris', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'us' } }));
    assert.deepEqual(names(vk1, deployment()), ['re-nyc']);
    assert.deepEqual(changed.sort(), ['vk1', 'vk2']);
  });

  it('placement engine follows virtual site and virtual_k8s changes', async () => {
    assert.deepEqual(names(vk1, deployment()), ['re-nyc']);
    changed.length = 0;
    await apply(virtualSiteEntry('acme', 'shared', 'eu', 'REGIONAL_EDGE', ['svc.io/region in (eu, us)']));
    assert.deepEqual(changed, ['vk1']);
    assert.deepEqual(names(vk1, deployment()), ['re-nyc', 're-paris']);
    changed.length = 0;
    await apply(virtualK8sEntry('acme', 'default', 'vk1', { vsiteRefs: [{ tenant: 'svc-io', namespace: 'svc-io-shared', name: 'all-stores' }] }));
    assert.deepEqual(changed, ['vk1']);
    assert.deepEqual(names(vk1, deployment()), ['ce-shop'], 'the platform customer-edge virtual site shows acme only its own store');
  });

  it('placement engine reports problems as FailedPlacement once per object generation and message', () => {
    recorded.length = 0;
    const broken = deployment({ 'svc.io/sites': 'system/ce-shop, system/nowhere, bad' });
    assert.deepEqual(names(vk1, broken), ['ce-shop']);
    assert.deepEqual(names(vk1, broken), ['ce-shop']);
    assert.deepEqual(
      recorded.map((r) => [r.type, r.reason, r.message]),
      [
        ['Warning', 'FailedPlacement', 'annotation svc.io/sites: "bad" is not a namespace/name reference'],
        ['Warning', 'FailedPlacement', 'annotation svc.io/sites: site system/nowhere does not exist'],
      ],
    );
    const next = { ...broken, metadata: { ...broken.metadata, generation: 2 } };
    names(vk1, next);
    names(vk1, next);
    assert.equal(recorded.length, 4, 'a new generation hears the problems again, once');
    const other = deployment({ 'svc.io/sites': 'system/ce-shop, system/nowhere, bad' });
    names(vk1, other);
    assert.equal(recorded.length, 6, 'another object with the same annotation is told too');
  });

  it('placement engine keeps a workload whose references resolve to no site where it runs, and moves it once they resolve', async () => {
    recorded.length = 0;
    const sitesOf = (placement: { sites: readonly { name: string }[] }): string[] => placement.sites.map((s) => s.name);
    const typo = deployment({ 'svc.io/sites': 'system/ce-shpo' });
    const kept = engine.placementOf(DEPLOYMENTS, vk1, typo, ['ce-shop', 'gone', 'ce-shop']);
    assert.deepEqual(sitesOf(kept), ['ce-shop'], 'the running sites that exist stay; one that is gone does not');
    assert.equal(kept.unresolved, 'annotation svc.io/sites (system/ce-shpo) resolves to no site: the workload stays on the sites it runs on until its placement resolves');
    engine.placementOf(DEPLOYMENTS, vk1, typo, ['ce-shop']);
    assert.deepEqual(
      recorded.map((r) => [r.type, r.reason, r.message]),
      [
        ['Warning', 'FailedPlacement', 'annotation svc.io/sites: site system/ce-shpo does not exist'],
        ['Warning', 'PlacementUnresolved', kept.unresolved],
      ],
      'each once per generation',
    );
    assert.deepEqual(names(vk1, typo), [], 'objects that run no pods (sitesFor) are placed nowhere as before');

    const fresh = engine.placementOf(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'default/nothing' }), []);
    assert.deepEqual(sitesOf(fresh), [], 'a new workload that runs nowhere is placed nowhere');
    assert.match(fresh.unresolved ?? '', /^annotation svc\.io\/virtual-sites \(default\/nothing\) resolves to no site/);

    await apply(virtualSiteEntry('acme', 'default', 'mars', 'REGIONAL_EDGE', ['svc.io/region=mars']));
    const selectsNothing = engine.placementOf(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'default/mars' }), ['re-nyc']);
    assert.deepEqual(sitesOf(selectsNothing), ['re-nyc'], 'a virtual site selecting no site leaves the workload where it runs');
    assert.match(selectsNothing.unresolved ?? '', /^annotation svc\.io\/virtual-sites \(default\/mars\) resolves to no site/);

    recorded.length = 0;
    const partial = engine.placementOf(DEPLOYMENTS, vk1, deployment({ 'svc.io/sites': 'system/ce-shop, system/nowhere' }), ['re-nyc']);
    assert.deepEqual([sitesOf(partial), partial.unresolved], [['ce-shop'], undefined], 'some references resolve: the workload goes where they point');
    assert.deepEqual(
      recorded.map((r) => [r.reason, r.message]),
      [['FailedPlacement', 'annotation svc.io/sites: site system/nowhere does not exist']],
      'the missing ones are named',
    );

    changed.length = 0;
    await apply(siteEntry('ce-shpo', 'CUSTOMER_EDGE'));
    assert.deepEqual(changed, ['vk1'], 'the cluster hears that the missing site appeared');
    const resolved = engine.placementOf(DEPLOYMENTS, vk1, typo, ['ce-shop']);
    assert.deepEqual([sitesOf(resolved), resolved.unresolved], [['ce-shpo'], undefined], 'resolved again: it moves');
  });

  it('placement engine reports a workload placed nowhere but not a config map', async () => {
    await apply(virtualK8sEntry('acme', 'default', 'vk-empty'));
    const cluster: ClusterRef = { ...vk1, name: 'vk-empty' };
    recorded.length = 0;
    assert.deepEqual(names(cluster, deployment()), []);
    assert.deepEqual(names(cluster, deployment(), CONFIGMAPS), []);
    assert.deepEqual(
      recorded.map((r) => r.message),
      ['no placement: the object has no svc.io/sites or svc.io/virtual-sites annotation and virtual_k8s vk-empty has no vsite_refs'],
    );
  });

  it('placement engine notifies when a missing site appears', async () => {
    const object = deployment({ 'svc.io/sites': 'system/ce-later' });
    assert.deepEqual(names(vk1, object), []);
    changed.length = 0;
    await apply(siteEntry('ce-later', 'CUSTOMER_EDGE'));
    assert.deepEqual(changed, ['vk1']);
    assert.deepEqual(names(vk1, object), ['ce-later']);
  });

  it('placement engine applies the site state rule and notifies on state changes', () => {
    const object = deployment({ 'svc.io/sites': 'svc-io-system/re-paris, svc-io-system/re-nyc' });
    assert.deepEqual(
      engine.sitesFor(DEPLOYMENTS, vk2, object).map((s) => [s.name, s.acceptsNewWork]),
      [
        ['re-nyc', undefined],
        ['re-paris', undefined],
      ],
    );
    assert.deepEqual(names(vk2, deployment()), ['re-nyc', 're-paris']);
    changed.length = 0;
    states.set('re-paris', 'FAILED');
    assert.deepEqual(changed, ['vk2'], 'the cluster whose placements involve the site (vk1 now uses customer edges only)');
    assert.deepEqual(
      engine.sitesFor(DEPLOYMENTS, vk2, object).map((s) => [s.name, s.acceptsNewWork]),
      [
        ['re-nyc', undefined],
        ['re-paris', false],
      ],
    );
    assert.deepEqual(
      engine.sitesFor(DEPLOYMENTS, vk2, deployment()).map((s) => [s.name, s.acceptsNewWork]),
      [
        ['re-nyc', undefined],
        ['re-paris', false],
      ],
    );
    states.set('re-paris', 'DECOMMISSIONING');
    assert.deepEqual(names(vk2, object), ['re-nyc']);
    states.set('re-paris', 'ONLINE');
    assert.deepEqual(names(vk2, object), ['re-nyc', 're-paris']);
  });

  it('placement engine drops a deleted cluster and its memo', async () => {
    names(vk2, deployment());
    const before = engine.memoSize;
    changed.length = 0;
    const generation = index.generation;
    const key = virtualK8sEntry('acme', 'default', 'vk2').key;
    const found = await store.get(key);
    await store.delete(key, found?.modRevision);
    await eventually('the index saw the deletion', () => index.generation > generation);
    assert.deepEqual(changed, ['vk2']);
    assert.ok(engine.memoSize < before);
    assert.deepEqual(names(vk2, deployment()), []);
  });
});

describe('placement engine at scale', () => {
  it('placement engine handles 10,000 sites and incremental relabels quickly', () => {
    const index = new PlacementConfigIndex();
    const entries: ConfigEntry[] = [
      virtualSiteEntry('svc-io', 'svc-io-shared', 'all-regional-edges', 'REGIONAL_EDGE', ['svc.io/siteType=svc-io-re']),
      virtualSiteEntry('acme', 'shared', 'even', 'REGIONAL_EDGE', ['parity=even']),
      virtualSiteEntry('acme', 'shared', 'gold', 'REGIONAL_EDGE', ['tier=gold', 'tier=platinum']),
      virtualK8sEntry('acme', 'default', 'vk1', { vsiteRefs: [{ tenant: 'svc-io', namespace: 'svc-io-shared', name: 'all-regional-edges' }] }),
    ];
    for (let i = 0; i < 10_000; i++) entries.push(siteEntry(`re-${i}`, 'REGIONAL_EDGE', { labels: { parity: i % 2 === 0 ? 'even' : 'odd', tier: i % 100 === 0 ? 'gold' : 'bronze' } }));
    const started = performance.now();
    index.relisted(asKeyValues(entries));
    const engine = new PlacementEngine({ index, defer: (flush) => flush() });
    let notified = 0;
    engine.onClusterChange(() => notified++);
    assert.equal(engine.sitesFor(DEPLOYMENTS, vk1, deployment()).length, 10_000);
    assert.equal(engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'shared/even' })).length, 5_000);
    assert.equal(engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'shared/gold' })).length, 100);
    for (let i = 0; i < 200; i++) {
      index.changed(putEvent(siteEntry(`re-${i}`, 'REGIONAL_EDGE', { labels: { parity: 'odd', tier: 'gold' } }), 20_000 + i));
      engine.sitesFor(DEPLOYMENTS, vk1, deployment());
      engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'shared/even' }));
    }
    assert.equal(engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'shared/even' })).length, 4_900);
    assert.equal(engine.sitesFor(DEPLOYMENTS, vk1, deployment({ 'svc.io/virtual-sites': 'shared/gold' })).length, 298);
    assert.equal(notified, 200, 'each relabel notified the one cluster once');
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 15_000, `took ${Math.round(elapsed)} ms`);
  });
});
