import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { PlacementConfigIndex } from './config-index.js';
import { BUILTIN_FLAVORS } from './flavors.js';
import type { PlacedSite } from './placed-site.js';
import { createPodTemplateFor } from './pod-template-for.js';
import { sitePodTemplate } from './site-pod-template.js';
import { asKeyValues, flavorEntry, putEvent, virtualK8sEntry } from './testing/config-fixtures.js';

const paris: PlacedSite = {
  name: 're-paris',
  type: 'REGIONAL_EDGE',
  labels: { 'svc.io/siteName': 're-paris', 'svc.io/region': 'eu-west', 'svc.io/country': 'fr', 'svc.io/provider': 'aws', 'svc.io/fleet': 'f1' },
};
const shop: PlacedSite = { name: 'ce-shop', type: 'CUSTOMER_EDGE', labels: { 'svc.io/siteName': 'ce-shop' } };

const template = (): PodTemplateSpec => ({
  metadata: { labels: { app: 'web' } },
  spec: {
    initContainers: [{ name: 'init', image: 'busybox' }],
    containers: [
      { name: 'web', image: 'nginx', env: [{ name: 'A', value: '1' }, { name: 'SVC_IO_SITENAME', value: 'spoofed' }], resources: { limits: { cpu: '2', memory: '64Mi' } } },
      { name: 'side', image: 'envoy' },
    ],
  },
});

const envOf = (t: PodTemplateSpec, container: string): Record<string, string> =>
  Object.fromEntries((t.spec?.containers?.find((c) => c.name === container)?.env ?? []).map((v) => [v.name ?? '', v.value ?? '']));

describe('site pod template', () => {
  it('site pod template labels the pods with their site and keeps the template labels', () => {
    const result = sitePodTemplate(template(), paris, { pod: BUILTIN_FLAVORS.tiny, containers: {} });
    assert.deepEqual(result.metadata?.labels, { app: 'web', 'svc.io/siteName': 're-paris' });
    const bare = sitePodTemplate({ spec: { containers: [{ name: 'c' }] } }, shop, { pod: BUILTIN_FLAVORS.tiny, containers: {} });
    assert.deepEqual(bare.metadata?.labels, { 'svc.io/siteName': 'ce-shop' });
  });

  it('site pod template gives every container the site variables, the platform values winning', () => {
    const result = sitePodTemplate(template(), paris, { pod: BUILTIN_FLAVORS.tiny, containers: {} });
    assert.deepEqual(envOf(result, 'web'), {
      A: '1',
      SVC_IO_SITENAME: 're-paris',
      SVC_IO_SITETYPE: 'REGIONAL_EDGE',
      SVC_IO_REGION: 'eu-west',
      SVC_IO_COUNTRY: 'fr',
      SVC_IO_PROVIDER: 'aws',
      SVC_IO_FLEET: 'f1',
    });
    assert.equal(result.spec?.initContainers?.[0]?.env?.length, 6);
    const ce = sitePodTemplate(template(), shop, { pod: BUILTIN_FLAVORS.tiny, containers: {} });
    assert.deepEqual(envOf(ce, 'side'), { SVC_IO_SITENAME: 'ce-shop', SVC_IO_SITETYPE: 'CUSTOMER_EDGE' }, 'facts the site lacks are left out');
  });

  it('site pod template caps limits with the flavor on regional edges and honours container limits on customer edges', () => {
    const flavors = { pod: BUILTIN_FLAVORS.tiny, containers: { web: BUILTIN_FLAVORS.large } };
    const re = sitePodTemplate(template(), paris, flavors);
    assert.deepEqual(re.spec?.containers?.map((c) => c.resources?.limits), [
      { cpu: '1', memory: '64Mi' },
      { cpu: '100m', memory: '100Mi' },
    ]);
    assert.deepEqual(re.spec?.initContainers?.[0]?.resources?.limits, { cpu: '100m', memory: '100Mi' });
    const ce = sitePodTemplate(template(), shop, flavors);
    assert.deepEqual(ce.spec?.containers?.map((c) => c.resources?.limits), [
      { cpu: '2', memory: '64Mi' },
      { cpu: '100m', memory: '100Mi' },
    ]);
  });

  it('site pod template leaves its input unchanged', () => {
    const input = template();
    const before = JSON.stringify(input);
    sitePodTemplate(input, paris, { pod: BUILTIN_FLAVORS.medium, containers: {} });
    assert.equal(JSON.stringify(input), before);
  });

  it('pod template factory resolves flavors from annotations, the cluster default and flavor objects', () => {
    const index = new PlacementConfigIndex();
    index.relisted(
      asKeyValues([
        flavorEntry('acme', 'shared', 'fat', 0.5, 512),
        virtualK8sEntry('acme', 'default', 'vk1', { defaultFlavorRef: { tenant: 'acme', namespace: 'shared', name: 'fat' } }),
        virtualK8sEntry('acme', 'default', 'vk2'),
      ]),
    );
    const podTemplateFor = createPodTemplateFor(index);
    const vk1: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk1' };
    const vk2: ClusterRef = { tenant: 'acme', namespace: 'default', name: 'vk2' };
    const workload = (annotations?: Record<string, string>): KubeObject => ({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', ...(annotations === undefined ? {} : { annotations }) } });
    const limits = (t: PodTemplateSpec): unknown[] => (t.spec?.containers ?? []).map((c) => c.resources?.limits);
    const t = template();
    assert.deepEqual(limits(podTemplateFor(vk1, workload(), t, paris)), [
      { cpu: '500m', memory: '64Mi' },
      { cpu: '500m', memory: '512Mi' },
    ]);
    assert.deepEqual(limits(podTemplateFor(vk2, workload(), t, paris)), [
      { cpu: '100m', memory: '64Mi' },
      { cpu: '100m', memory: '100Mi' },
    ]);
    assert.deepEqual(limits(podTemplateFor(vk1, workload({ 'svc.io/workload-flavor': 'medium', 'svc.io/workload-flavor-side': 'large' }), t, paris)), [
      { cpu: '250m', memory: '64Mi' },
      { cpu: '1', memory: '1Gi' },
    ]);
    const deployment = workload({ 'svc.io/workload-flavor': 'fat' });
    assert.deepEqual(limits(podTemplateFor(vk2, deployment, t, paris))[1], { cpu: '500m', memory: '512Mi' });
    // A flavor object changes: the next template sees it although the workload is the same object.
    index.changed(putEvent(flavorEntry('acme', 'shared', 'fat', 0.75, 768), 50));
    assert.deepEqual(limits(podTemplateFor(vk2, deployment, t, paris))[1], { cpu: '750m', memory: '768Mi' });
  });
});
