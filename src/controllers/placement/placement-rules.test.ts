import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { PlacementConfigIndex } from './config-index.js';
import { decidePlacement, type PlacementSource } from './placement-rules.js';
import { asKeyValues, siteEntry, virtualK8sEntry, virtualSiteEntry } from './testing/config-fixtures.js';

const world = [
  siteEntry('re-paris', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu-west', 'svc.io/country': 'fr' } }),
  siteEntry('re-nyc', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'us-east' } }),
  siteEntry('re-tokyo', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'ap' } }),
  siteEntry('re-off', 'REGIONAL_EDGE', { labels: { 'svc.io/region': 'eu-west' }, disable: true }),
  siteEntry('ce-shop', 'CUSTOMER_EDGE', { labels: { store: 'yes' } }),
  siteEntry('ce-lab', 'CUSTOMER_EDGE', { labels: { env: 'lab' } }),
  siteEntry('ce-beta', 'CUSTOMER_EDGE', { tenant: 'beta', labels: { store: 'yes', env: 'lab' } }),
  siteEntry('ce-odd', 'REGIONAL_EDGE', { tenant: 'acme', namespace: 'system' }),
  virtualSiteEntry('svc-io', 'svc-io-shared', 'all-regional-edges', 'REGIONAL_EDGE', ['svc.io/siteType=svc-io-re']),
  virtualSiteEntry('svc-io', 'svc-io-shared', 'all-stores', 'CUSTOMER_EDGE', ['store=yes']),
  virtualSiteEntry('acme', 'shared', 'eu', 'REGIONAL_EDGE', ['svc.io/region=eu-west']),
  virtualSiteEntry('acme', 'shared', 'two-exprs', 'REGIONAL_EDGE', ['svc.io/region=us-east', 'svc.io/region in (ap)']),
  virtualSiteEntry('acme', 'shared', 'off', 'REGIONAL_EDGE', ['svc.io/region'], { disable: true }),
  virtualSiteEntry('acme', 'default', 'labs', 'CUSTOMER_EDGE', ['env=lab']),
  virtualSiteEntry('acme', 'shared', 'ce-everything', 'CUSTOMER_EDGE', ['']),
  virtualK8sEntry('acme', 'default', 'vk1', { vsiteRefs: [{ tenant: 'acme', namespace: 'shared', name: 'eu' }] }),
  virtualK8sEntry('acme', 'default', 'vk-two', { vsiteRefs: [{ namespace: 'shared', name: 'eu' }, { namespace: 'svc-io-shared', name: 'all-regional-edges' }] }),
  virtualK8sEntry('acme', 'default', 'vk-empty'),
  virtualK8sEntry('acme', 'default', 'vk-missing', { vsiteRefs: [{ tenant: 'acme', namespace: 'shared', name: 'gone' }] }),
  virtualK8sEntry('beta', 'default', 'vkb', { vsiteRefs: [{ tenant: 'beta', namespace: 'shared', name: 'eu' }] }),
];

const index = new PlacementConfigIndex();
index.relisted(asKeyValues(world));

const acme = (name = 'vk1'): ClusterRef => ({ tenant: 'acme', namespace: 'default', name });
const beta: ClusterRef = { tenant: 'beta', namespace: 'default', name: 'vkb' };

interface Case {
  readonly name: string;
  readonly cluster?: ClusterRef;
  readonly annotations?: Record<string, string>;
  readonly requirePlacement?: boolean;
  readonly source: PlacementSource;
  readonly sites: readonly string[];
  readonly problems?: readonly string[];
}

const cases: readonly Case[] = [
  { name: 'no annotation takes the vK8s default', source: 'default', sites: ['re-paris'] },
  { name: 'several vsite_refs add up', cluster: acme('vk-two'), source: 'default', sites: ['re-nyc', 're-paris', 're-tokyo'] },
  { name: 'the platform virtual site selects every enabled regional edge', annotations: { 'svc.io/virtual-sites': 'svc-io-shared/all-regional-edges' }, source: 'virtual-sites', sites: ['re-nyc', 're-paris', 're-tokyo'] },
  { name: 'several expressions are ORed', annotations: { 'svc.io/virtual-sites': 'shared/two-exprs' }, source: 'virtual-sites', sites: ['re-nyc', 're-tokyo'] },
  { name: 'a virtual site in the cluster namespace', annotations: { 'svc.io/virtual-sites': 'default/labs' }, source: 'virtual-sites', sites: ['ce-lab'] },
  { name: 'a platform customer-edge virtual site shows only the tenant own sites', annotations: { 'svc.io/virtual-sites': 'svc-io-shared/all-stores' }, source: 'virtual-sites', sites: ['ce-shop'] },
  { name: 'the same for the other tenant', cluster: beta, annotations: { 'svc.io/virtual-sites': 'svc-io-shared/all-stores' }, source: 'virtual-sites', sites: ['ce-beta'] },
  { name: 'an empty selector selects every site of its type the tenant has', annotations: { 'svc.io/virtual-sites': 'shared/ce-everything' }, source: 'virtual-sites', sites: ['ce-lab', 'ce-shop'] },
  { name: 'virtual-sites lists add up, spaces tolerated', annotations: { 'svc.io/virtual-sites': 'shared/eu,  default/labs' }, source: 'virtual-sites', sites: ['ce-lab', 're-paris'] },
  { name: 'sites lists customer and regional edges', annotations: { 'svc.io/sites': 'system/ce-shop,svc-io-system/re-nyc' }, source: 'sites', sites: ['ce-shop', 're-nyc'] },
  { name: 'sites tolerates spaces after commas', annotations: { 'svc.io/sites': 'system/ce-shop, svc-io-system/re-nyc ,svc-io-system/re-tokyo' }, source: 'sites', sites: ['ce-shop', 're-nyc', 're-tokyo'] },
  { name: 'sites has priority over virtual-sites', annotations: { 'svc.io/sites': 'svc-io-system/re-nyc', 'svc.io/virtual-sites': 'shared/eu' }, source: 'sites', sites: ['re-nyc'] },
  { name: 'a repeated entry counts once', annotations: { 'svc.io/sites': 'system/ce-shop,system/ce-shop' }, source: 'sites', sites: ['ce-shop'] },
  {
    name: 'a missing site is reported and the rest placed',
    annotations: { 'svc.io/sites': 'system/ce-shop, system/nowhere' },
    source: 'sites',
    sites: ['ce-shop'],
    problems: ['annotation svc.io/sites: site system/nowhere does not exist'],
  },
  { name: 'another tenant customer-edge site does not exist for this one', annotations: { 'svc.io/sites': 'system/ce-beta' }, source: 'sites', sites: [], problems: ['annotation svc.io/sites: site system/ce-beta does not exist'] },
  {
    name: 'a regional edge named in system gets a hint',
    annotations: { 'svc.io/sites': 'system/re-paris' },
    source: 'sites',
    sites: [],
    problems: ['annotation svc.io/sites: site system/re-paris does not exist; re-paris is a regional-edge site: svc-io-system/re-paris'],
  },
  {
    name: 'a customer edge named in svc-io-system gets a hint',
    annotations: { 'svc.io/sites': 'svc-io-system/ce-shop' },
    source: 'sites',
    sites: [],
    problems: ['annotation svc.io/sites: site svc-io-system/ce-shop does not exist; ce-shop is a customer-edge site: system/ce-shop'],
  },
  {
    name: 'a site of the wrong kind for its namespace',
    annotations: { 'svc.io/sites': 'system/ce-odd' },
    source: 'sites',
    sites: [],
    problems: ['annotation svc.io/sites: site system/ce-odd is a regional-edge site; namespace system holds customer-edge sites'],
  },
  { name: 'a disabled site', annotations: { 'svc.io/sites': 'svc-io-system/re-off' }, source: 'sites', sites: [], problems: ['annotation svc.io/sites: site svc-io-system/re-off is disabled'] },
  {
    name: 'a namespace without sites',
    annotations: { 'svc.io/sites': 'default/ce-shop' },
    source: 'sites',
    sites: [],
    problems: ['annotation svc.io/sites: namespace "default" holds no sites: customer-edge sites are in "system", regional-edge sites in "svc-io-system"'],
  },
  { name: 'an entry without a namespace', annotations: { 'svc.io/sites': 'ce-shop' }, source: 'sites', sites: [], problems: ['annotation svc.io/sites: "ce-shop" is not a namespace/name reference'] },
  { name: 'an empty value decides: nowhere', annotations: { 'svc.io/sites': ' ' }, source: 'sites', sites: [], problems: ['annotation svc.io/sites: empty value; expected namespace/name[,namespace/name…]'] },
  { name: 'an empty entry', annotations: { 'svc.io/sites': 'system/ce-shop,' }, source: 'sites', sites: ['ce-shop'], problems: ['annotation svc.io/sites: empty entry in "system/ce-shop,"'] },
  {
    name: 'a virtual site out of reach',
    annotations: { 'svc.io/virtual-sites': 'prod/eu' },
    source: 'virtual-sites',
    sites: [],
    problems: ['annotation svc.io/virtual-sites: virtual site prod/eu is out of reach: refer to virtual sites in namespace default, shared or svc-io-shared'],
  },
  {
    name: 'a site named as a virtual site gets a hint',
    annotations: { 'svc.io/virtual-sites': 'system/ce-shop' },
    source: 'virtual-sites',
    sites: [],
    problems: ['annotation svc.io/virtual-sites: virtual site system/ce-shop is out of reach: refer to virtual sites in namespace default, shared or svc-io-shared; system/ce-shop is a site: list it in svc.io/sites'],
  },
  { name: 'a missing virtual site', annotations: { 'svc.io/virtual-sites': 'shared/gone' }, source: 'virtual-sites', sites: [], problems: ['annotation svc.io/virtual-sites: virtual site shared/gone does not exist'] },
  { name: 'a disabled virtual site', annotations: { 'svc.io/virtual-sites': 'shared/off' }, source: 'virtual-sites', sites: [], problems: ['annotation svc.io/virtual-sites: virtual site shared/off is disabled'] },
  { name: 'another tenant virtual sites are not reachable', cluster: beta, annotations: { 'svc.io/virtual-sites': 'shared/two-exprs' }, source: 'virtual-sites', sites: [], problems: ['annotation svc.io/virtual-sites: virtual site shared/two-exprs does not exist'] },
  { name: 'a vK8s default naming a missing virtual site', cluster: acme('vk-missing'), source: 'default', sites: [], problems: ['virtual_k8s vk-missing: spec.vsite_refs[0]: virtual site shared/gone does not exist'] },
  { name: 'a vK8s without vsite_refs places nowhere, silently for configuration', cluster: acme('vk-empty'), source: 'default', sites: [] },
  {
    name: 'a vK8s without vsite_refs places nowhere, reported for workloads',
    cluster: acme('vk-empty'),
    requirePlacement: true,
    source: 'default',
    sites: [],
    problems: ['no placement: the object has no svc.io/sites or svc.io/virtual-sites annotation and virtual_k8s vk-empty has no vsite_refs'],
  },
  { name: 'a cluster whose virtual_k8s object is gone places nowhere', cluster: acme('deleted'), requirePlacement: true, source: 'default', sites: [] },
];

describe('placement rules', () => {
  for (const c of cases) {
    it(`placement ${c.name}`, () => {
      const decision = decidePlacement({ cluster: c.cluster ?? acme(), annotations: c.annotations, vk8s: index.virtualK8s(c.cluster ?? acme()), requirePlacement: c.requirePlacement ?? false }, index);
      assert.equal(decision.source, c.source);
      assert.deepEqual(
        decision.sites.map((s) => s.name),
        c.sites,
      );
      assert.deepEqual(decision.problems, c.problems ?? []);
    });
  }

  it('placement records what a decision depends on, present or not', () => {
    const bySites = decidePlacement({ cluster: acme(), annotations: { 'svc.io/sites': 'system/ce-shop, system/nowhere' }, vk8s: index.virtualK8s(acme()) }, index);
    assert.deepEqual(bySites.siteDependencies, ['ce-shop', 'nowhere']);
    assert.deepEqual(bySites.virtualSiteDependencies, []);
    const byVsites = decidePlacement({ cluster: acme(), annotations: { 'svc.io/virtual-sites': 'shared/gone,svc-io-shared/all-stores' }, vk8s: undefined }, index);
    assert.deepEqual(byVsites.virtualSiteDependencies, ['acme/shared/gone', 'svc-io/svc-io-shared/all-stores']);
    const byDefault = decidePlacement({ cluster: acme('vk-two'), annotations: undefined, vk8s: index.virtualK8s(acme('vk-two')) }, index);
    assert.deepEqual(byDefault.virtualSiteDependencies, ['acme/shared/eu', 'svc-io/svc-io-shared/all-regional-edges']);
  });
});
