import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nodeDirectoryFor } from './node-directory.js';
import { checkSiteName, parseLabels, simulatedSiteName, sitesWithRuntime, siteSpecsFor } from './site-specs.js';

describe('site specs', () => {
  it('simulated site names are zero-padded to the width of the last index', () => {
    assert.equal(simulatedSiteName('edge', 0, 1000), 'edge-000');
    assert.equal(simulatedSiteName('edge', 999, 1000), 'edge-999');
    assert.equal(simulatedSiteName('edge', 7, 1001), 'edge-0007');
    const specs = siteSpecsFor({ name: 'sim', type: 'REGIONAL_EDGE', labels: { region: 'eu' }, nodes: 2, cpu: '4', memory: '8Gi', quota: { cpu: '2', memory: '4Gi' }, simulateSites: 12 });
    assert.equal(specs.length, 12);
    assert.equal(specs[11]?.name, 'sim-11');
    assert.deepEqual(specs[0], {
      name: 'sim-00',
      type: 'REGIONAL_EDGE',
      labels: { region: 'eu' },
      nodes: [{ name: 'node-0', cpu: '4', memory: '8Gi' }, { name: 'node-1', cpu: '4', memory: '8Gi' }],
      quota: { cpu: '2', memory: '4Gi' },
    });
    assert.equal(siteSpecsFor({ name: 'one', type: 'CUSTOMER_EDGE', labels: {}, nodes: 1, cpu: '1', memory: '1Gi' })[0]?.name, 'one');
  });

  it('sites are registered with their runtime: runc with its version, simulated saying nothing as before', () => {
    const sites = siteSpecsFor({ name: 'one', type: 'CUSTOMER_EDGE', labels: {}, nodes: 1, cpu: '1', memory: '1Gi' });
    const runc = sitesWithRuntime(sites, { runtime: 'runc', version: '1.1.5' });
    assert.deepEqual(runc, [{ ...sites[0], runtime: 'runc', runtimeVersion: '1.1.5' }]);
    assert.deepEqual(sitesWithRuntime(sites, { runtime: 'runc' }), [{ ...sites[0], runtime: 'runc' }]);
    assert.deepEqual(sitesWithRuntime(runc, { runtime: 'simulated' }), sites);
    assert.deepEqual(sitesWithRuntime(sites, { runtime: 'simulated' }), sites);
  });

  it('site labels parse with spaces after commas and are checked like Kubernetes labels', () => {
    assert.deepEqual(parseLabels('region=eu, tier = edge,,x.io/k=v'), { region: 'eu', tier: 'edge', 'x.io/k': 'v' });
    assert.throws(() => parseLabels('region'), /not key=value/);
    assert.throws(() => parseLabels('bad key=v'), /label "bad key=v" is invalid: key/);
    assert.throws(() => parseLabels('k=' + 'v'.repeat(64)), /value/);
    assert.throws(() => checkSiteName('Edge_1'), /site name "Edge_1" is invalid/);
  });

  it('node directory maps platform node names to their site with distinct slots', () => {
    const sites = siteSpecsFor({ name: 's', type: 'CUSTOMER_EDGE', labels: {}, nodes: 3, cpu: '1', memory: '1Gi', simulateSites: 300 });
    const directory = nodeDirectoryFor('s', sites);
    const info = directory.lookup('s-123-node-2');
    assert.equal(info?.site, 's-123');
    assert.equal(info?.nodeIndex, 2);
    assert.equal(directory.lookup('s-123-node-3'), undefined);
    const slots = new Set(sites.map((site) => directory.lookup(`${site.name}-node-0`)?.siteSlot));
    assert.equal(slots.size, 300);
  });
});
