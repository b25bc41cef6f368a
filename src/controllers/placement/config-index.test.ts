import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WatchEvent } from '../../store/types.js';
import { PlacementConfigIndex, type ConfigIndexChange } from './config-index.js';
import { asKeyValues, deleteEvent, flavorEntry, putEvent, siteEntry, virtualK8sEntry, virtualSiteEntry, type ConfigEntry } from './testing/config-fixtures.js';

let revision = 100;
const put = (entry: ConfigEntry): WatchEvent => putEvent(entry, ++revision);
const del = (entry: ConfigEntry): WatchEvent => deleteEvent(entry, ++revision);

function indexWith(entries: ConfigEntry[]): { index: PlacementConfigIndex; changes: ConfigIndexChange[] } {
  const index = new PlacementConfigIndex();
  const changes: ConfigIndexChange[] = [];
  index.relisted(asKeyValues(entries));
  index.onChange((change) => changes.push(change));
  return { index, changes };
}

/** The sorted member list (cached by the index), checked against the member set. */
const members = (index: PlacementConfigIndex, id: string): string[] => {
  const found = index.virtualSite(id);
  const sorted = (found?.sorted ?? []).map((s) => s.name);
  assert.deepEqual(sorted, [...(found?.members ?? [])].sort());
  return sorted;
};

describe('placement config index', () => {
  it('config index keeps virtual site members as sites appear, change labels and leave', () => {
    const eu = virtualSiteEntry('acme', 'shared', 'eu', 'REGIONAL_EDGE', ['svc.io/region=eu']);
    const { index, changes } = indexWith([eu, siteEntry('re-1', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu' } })]);
    assert.deepEqual(members(index, 'acme/shared/eu'), ['re-1']);

    index.changed(put(siteEntry('re-2', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu' } })));
    assert.deepEqual(members(index, 'acme/shared/eu'), ['re-1', 're-2']);
    index.changed(put(siteEntry('re-2', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu', rack: 'r1' } })));
    assert.equal(index.virtualSite('acme/shared/eu')?.sorted[1]?.labels['rack'], 'r1', 'a member relabelled within the selector is seen with its new labels');
    index.changed(put(siteEntry('re-1', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'us' } })));
    assert.deepEqual(members(index, 'acme/shared/eu'), ['re-2']);
    index.changed(del(siteEntry('re-2', 'REGIONAL_EDGE')));
    assert.deepEqual(members(index, 'acme/shared/eu'), []);
    assert.deepEqual(changes, [
      { kind: 'site', name: 're-2', tenant: 'svc-io', virtualSites: ['acme/shared/eu'] },
      { kind: 'site', name: 're-2', tenant: 'svc-io', virtualSites: ['acme/shared/eu'] },
      { kind: 'site', name: 're-1', tenant: 'svc-io', virtualSites: ['acme/shared/eu'] },
      { kind: 'site', name: 're-2', tenant: 'svc-io', virtualSites: ['acme/shared/eu'] },
    ]);
  });

  it('config index recomputes a virtual site when its selector or type changes', () => {
    const { index, changes } = indexWith([
      siteEntry('re-1', 'REGIONAL_EDGE', { labels: { tier: 'gold' } }),
      siteEntry('ce-1', 'CUSTOMER_EDGE', { labels: { tier: 'gold' } }),
      virtualSiteEntry('acme', 'shared', 'gold', 'REGIONAL_EDGE', ['tier=silver']),
    ]);
    assert.deepEqual(members(index, 'acme/shared/gold'), []);
    index.changed(put(virtualSiteEntry('acme', 'shared', 'gold', 'REGIONAL_EDGE', ['tier=gold'])));
    assert.deepEqual(members(index, 'acme/shared/gold'), ['re-1']);
    index.changed(put(virtualSiteEntry('acme', 'shared', 'gold', 'CUSTOMER_EDGE', ['tier=gold'])));
    assert.deepEqual(members(index, 'acme/shared/gold'), ['ce-1']);
    assert.deepEqual(index.virtualSitesOf('ce-1'), ['acme/shared/gold']);
    index.changed(del(virtualSiteEntry('acme', 'shared', 'gold', 'CUSTOMER_EDGE', [])));
    assert.equal(index.virtualSite('acme/shared/gold'), undefined);
    assert.deepEqual(
      changes.map((c) => c.kind),
      ['virtual_site', 'virtual_site', 'virtual_site'],
    );
  });

  it('config index ignores writes that change nothing placement reads', () => {
    const site = siteEntry('re-1', 'REGIONAL_EDGE');
    const { index, changes } = indexWith([site, virtualK8sEntry('acme', 'default', 'vk1')]);
    const generation = index.generation;
    // The same site again (e.g. a status-only write: status is not read).
    const withStatus = JSON.parse(site.value) as Record<string, unknown>;
    withStatus['status'] = [{ state: 'ONLINE' }];
    index.changed(put({ key: site.key, value: JSON.stringify(withStatus) }));
    index.changed(put(virtualK8sEntry('acme', 'default', 'vk1')));
    index.changed(put({ key: '/config/acme/dns_domain/default/example.com', value: '{}' }));
    index.changed(put({ key: site.key, value: 'not json' }));
    assert.deepEqual(changes, []);
    assert.equal(index.generation, generation);
  });

  it('config index tells virtual_k8s and flavor changes and lists clusters and flavor names', () => {
    const { index, changes } = indexWith([
      virtualK8sEntry('acme', 'default', 'vk1'),
      virtualK8sEntry('beta', 'default', 'vkb'),
      flavorEntry('svc-io', 'svc-io-shared', 'tiny', 0.1, 100),
      flavorEntry('svc-io', 'svc-io-shared', 'gpu', 4, 8192),
      flavorEntry('acme', 'shared', 'fat', 2, 4096),
      flavorEntry('acme', 'default', 'not-shared', 2, 4096),
      flavorEntry('beta', 'shared', 'beta-only', 2, 4096),
    ]);
    assert.deepEqual(index.flavorNames('acme'), ['fat', 'gpu', 'tiny']);
    assert.deepEqual(
      index.clustersOf('acme').map((c) => c.name),
      ['vk1'],
    );
    assert.deepEqual(
      index.clustersOf('svc-io').map((c) => c.name),
      ['vk1', 'vkb'],
    );
    index.changed(put(virtualK8sEntry('acme', 'default', 'vk1', { vsiteRefs: [{ tenant: 'acme', namespace: 'shared', name: 'eu' }] })));
    index.changed(put(flavorEntry('acme', 'shared', 'fat', 3, 4096)));
    index.changed(del(flavorEntry('acme', 'shared', 'fat', 3, 4096)));
    assert.deepEqual(changes, [
      { kind: 'virtual_k8s', cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' } },
      { kind: 'workload_flavor', tenant: 'acme' },
      { kind: 'workload_flavor', tenant: 'acme' },
    ]);
    assert.deepEqual(index.virtualK8s({ tenant: 'acme', namespace: 'default', name: 'vk1' })?.vsiteRefs, [{ tenant: 'acme', namespace: 'shared', name: 'eu' }]);
  });

  it('config index resolves platform refs of a virtual_k8s to the platform tenant', () => {
    const { index } = indexWith([
      virtualK8sEntry('acme', 'default', 'vk1', { vsiteRefs: [{ namespace: 'svc-io-shared', name: 'all-regional-edges' }], defaultFlavorRef: { namespace: 'shared', name: 'fat' } }),
    ]);
    const vk = index.virtualK8s({ tenant: 'acme', namespace: 'default', name: 'vk1' });
    assert.deepEqual(vk?.vsiteRefs, [{ tenant: 'svc-io', namespace: 'svc-io-shared', name: 'all-regional-edges' }]);
    assert.deepEqual(vk?.defaultFlavorRef, { tenant: 'acme', namespace: 'shared', name: 'fat' });
  });
});
