import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlacementConfigIndex } from './config-index.js';
import { allowedFlavorValues, clusterDefaultFlavor, flavorLookup } from './flavor-catalog.js';
import { BUILTIN_FLAVORS, flavorOfContainer, resolveContainerFlavors, type Flavor } from './flavors.js';
import { asKeyValues, flavorEntry, virtualK8sEntry } from './testing/config-fixtures.js';

const index = new PlacementConfigIndex();
index.relisted(
  asKeyValues([
    flavorEntry('svc-io', 'svc-io-shared', 'tiny', 0.1, 100),
    flavorEntry('svc-io', 'svc-io-shared', 'gpu', 4, 8192, 10240),
    flavorEntry('acme', 'shared', 'fat', 2.5, 4096),
    flavorEntry('acme', 'shared', 'gpu', 8, 16384),
    flavorEntry('acme', 'shared', 'tiny', 8, 16384),
    flavorEntry('acme', 'default', 'hidden', 1, 1),
    flavorEntry('beta', 'shared', 'beta-only', 1, 1),
    virtualK8sEntry('acme', 'default', 'vk-fat', { defaultFlavorRef: { namespace: 'shared', name: 'fat' } }),
    virtualK8sEntry('acme', 'default', 'vk-medium', { defaultFlavorRef: { namespace: 'svc-io-shared', name: 'medium' } }),
    virtualK8sEntry('acme', 'default', 'vk-gone', { defaultFlavorRef: { namespace: 'shared', name: 'gone' } }),
    virtualK8sEntry('acme', 'default', 'vk-plain'),
  ]),
);
const lookup = flavorLookup(index, 'acme');
const fat: Flavor = { name: 'fat', cpuMillis: 2500, memoryMiB: 4096 };
const cluster = (name: string): { tenant: string; namespace: string; name: string } => ({ tenant: 'acme', namespace: 'default', name });

describe('workload flavors', () => {
  it('flavor lookup keeps the seed values for tiny, medium and large and finds shared objects', () => {
    assert.deepEqual(lookup('tiny'), BUILTIN_FLAVORS.tiny, 'a tenant object named tiny does not redefine it');
    assert.deepEqual(lookup('medium'), { name: 'medium', cpuMillis: 250, memoryMiB: 250 });
    assert.deepEqual(lookup('large'), { name: 'large', cpuMillis: 1000, memoryMiB: 1024 });
    assert.deepEqual(lookup('fat'), fat);
    assert.deepEqual(lookup('gpu'), { name: 'gpu', cpuMillis: 8000, memoryMiB: 16384 }, 'the tenant shared object comes before the platform one');
    assert.deepEqual(flavorLookup(index, 'beta')('gpu'), { name: 'gpu', cpuMillis: 4000, memoryMiB: 8192, ephemeralStorageMiB: 10240 });
    assert.equal(lookup('hidden'), undefined, 'only the shared namespace holds flavors');
    assert.equal(lookup('beta-only'), undefined, 'another tenant flavors are not reachable');
    assert.equal(lookup('Tiny'), undefined);
  });

  it('flavor allowed values are the seed three then the reachable object names', () => {
    assert.deepEqual(allowedFlavorValues(index, 'acme'), ['tiny', 'medium', 'large', 'fat', 'gpu']);
    assert.deepEqual(allowedFlavorValues(index, 'beta'), ['tiny', 'medium', 'large', 'beta-only', 'gpu']);
  });

  it('flavor cluster default follows default_flavor_ref', () => {
    assert.deepEqual(clusterDefaultFlavor(index, cluster('vk-fat')), fat);
    assert.deepEqual(clusterDefaultFlavor(index, cluster('vk-medium')), BUILTIN_FLAVORS.medium, 'a platform builtin without its object');
    assert.equal(clusterDefaultFlavor(index, cluster('vk-gone')), undefined);
    assert.equal(clusterDefaultFlavor(index, cluster('vk-plain')), undefined);
    assert.equal(clusterDefaultFlavor(index, cluster('missing')), undefined);
  });

  const resolve = (annotations: Record<string, string> | undefined, clusterDefault?: Flavor): Record<string, string> => {
    const flavors = resolveContainerFlavors({ annotations, containerNames: ['web', 'side', 'init'], clusterDefault, lookup });
    return Object.fromEntries(['web', 'side', 'init', 'other'].map((c) => [c, flavorOfContainer(flavors, c).name]));
  };
  const cases: ReadonlyArray<{ name: string; annotations?: Record<string, string>; clusterDefault?: Flavor; expected: Record<string, string> }> = [
    { name: 'nothing named: tiny everywhere', expected: { web: 'tiny', side: 'tiny', init: 'tiny', other: 'tiny' } },
    { name: 'the cluster default', clusterDefault: fat, expected: { web: 'fat', side: 'fat', init: 'fat', other: 'fat' } },
    { name: 'the workload flavor beats the cluster default', annotations: { 'svc.io/workload-flavor': 'large' }, clusterDefault: fat, expected: { web: 'large', side: 'large', init: 'large', other: 'large' } },
    {
      name: 'a container flavor beats the workload flavor',
      annotations: { 'svc.io/workload-flavor': 'medium', 'svc.io/workload-flavor-side': 'fat', 'svc.io/workload-flavor-init': 'large' },
      expected: { web: 'medium', side: 'fat', init: 'large', other: 'medium' },
    },
    { name: 'a container flavor alone', annotations: { 'svc.io/workload-flavor-web': 'large' }, clusterDefault: fat, expected: { web: 'large', side: 'fat', init: 'fat', other: 'fat' } },
    { name: 'an unknown value is passed over', annotations: { 'svc.io/workload-flavor': 'huge', 'svc.io/workload-flavor-web': 'gone' }, clusterDefault: fat, expected: { web: 'fat', side: 'fat', init: 'fat', other: 'fat' } },
    { name: 'values are trimmed', annotations: { 'svc.io/workload-flavor': ' large ' }, expected: { web: 'large', side: 'large', init: 'large', other: 'large' } },
    { name: 'an annotation for a container not in the template is ignored', annotations: { 'svc.io/workload-flavor-other': 'large' }, expected: { web: 'tiny', side: 'tiny', init: 'tiny', other: 'tiny' } },
  ];
  for (const c of cases) {
    it(`flavor resolution: ${c.name}`, () => {
      assert.deepEqual(resolve(c.annotations, c.clusterDefault), c.expected);
    });
  }
});
