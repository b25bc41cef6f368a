import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SiteType } from '../../site-api/site-model.js';
import type { ResourceRequirements } from '../../api/pod-spec-types.js';
import { limitResources } from './flavor-limits.js';
import { BUILTIN_FLAVORS, type Flavor } from './flavors.js';

const medium = BUILTIN_FLAVORS.medium;
const large = BUILTIN_FLAVORS.large;
const disk: Flavor = { name: 'disk', cpuMillis: 2000, memoryMiB: 512, ephemeralStorageMiB: 1024 };

const cases: ReadonlyArray<{ name: string; site: SiteType; flavor?: Flavor; resources?: ResourceRequirements; expected: ResourceRequirements }> = [
  { name: 'RE: no resources get the flavor', site: 'REGIONAL_EDGE', expected: { limits: { cpu: '250m', memory: '250Mi' } } },
  { name: 'RE: large prints canonically', site: 'REGIONAL_EDGE', flavor: large, expected: { limits: { cpu: '1', memory: '1Gi' } } },
  { name: 'RE: limits above the flavor are lowered', site: 'REGIONAL_EDGE', resources: { limits: { cpu: '2', memory: '1Gi' } }, expected: { limits: { cpu: '250m', memory: '250Mi' } } },
  { name: 'RE: limits below the flavor are kept as written', site: 'REGIONAL_EDGE', resources: { limits: { cpu: '0.1', memory: 104857600 } }, expected: { limits: { cpu: '0.1', memory: 104857600 } } },
  { name: 'RE: a limit equal to the flavor is kept', site: 'REGIONAL_EDGE', resources: { limits: { cpu: '250m' } }, expected: { limits: { cpu: '250m', memory: '250Mi' } } },
  {
    name: 'RE: requests above the new limit are lowered, others kept',
    site: 'REGIONAL_EDGE',
    resources: { requests: { cpu: '500m', memory: '10Mi' }, limits: { cpu: '1' } },
    expected: { requests: { cpu: '250m', memory: '10Mi' }, limits: { cpu: '250m', memory: '250Mi' } },
  },
  { name: 'RE: other resources are left alone', site: 'REGIONAL_EDGE', resources: { limits: { 'nvidia.com/gpu': '1' } }, expected: { limits: { 'nvidia.com/gpu': '1', cpu: '250m', memory: '250Mi' } } },
  { name: 'RE: a flavor with ephemeral storage limits it too', site: 'REGIONAL_EDGE', flavor: disk, resources: { limits: { 'ephemeral-storage': '5Gi' } }, expected: { limits: { 'ephemeral-storage': '1Gi', cpu: '2', memory: '512Mi' } } },
  { name: 'CE: container limits are honoured even above the flavor', site: 'CUSTOMER_EDGE', resources: { limits: { cpu: '2', memory: '1Gi' } }, expected: { limits: { cpu: '2', memory: '1Gi' } } },
  { name: 'CE: the flavor fills a missing limit', site: 'CUSTOMER_EDGE', resources: { limits: { cpu: '2' } }, expected: { limits: { cpu: '2', memory: '250Mi' } } },
  { name: 'CE: no resources get the flavor', site: 'CUSTOMER_EDGE', expected: { limits: { cpu: '250m', memory: '250Mi' } } },
  {
    name: 'CE: a request above a flavor-filled limit is lowered',
    site: 'CUSTOMER_EDGE',
    resources: { requests: { cpu: '1', memory: '100Mi' } },
    expected: { requests: { cpu: '250m', memory: '100Mi' }, limits: { cpu: '250m', memory: '250Mi' } },
  },
  { name: 'an unparsable limit is replaced', site: 'CUSTOMER_EDGE', resources: { limits: { cpu: 'lots' } }, expected: { limits: { cpu: '250m', memory: '250Mi' } } },
];

describe('flavor limits', () => {
  for (const c of cases) {
    it(`flavor limits ${c.name}`, () => {
      const before = JSON.stringify(c.resources);
      assert.deepEqual(limitResources(c.resources, c.flavor ?? medium, c.site), c.expected);
      assert.equal(JSON.stringify(c.resources), before, 'the input is not changed');
    });
  }
});
