import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore } from '../../registry/generic-store.js';
import type { EndpointSubset } from '../../vk8s/kinds/core-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { eventually, startControllerWorld, testCluster, userScope, type ControllerWorld } from '../testing/controller-harness.js';
import type { ObjectInformer } from '../runtime/object-informer.js';
import { startEndpointsController } from './endpoints-controller.js';

const pod = (name: string, site: string, app = 'web'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app, 'svc.io/siteName': site } },
  spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
});

describe('endpoints controller over a memory store', () => {
  let world: ControllerWorld;
  let endpoints: ObjectInformer;
  let services: GenericStore;
  let pods: GenericStore;
  let controller: { stop(): Promise<void> };
  const subsets = (name: string): EndpointSubset[] => (endpoints.get(testCluster, name)?.subsets ?? []) as EndpointSubset[];
  const addresses = (name: string): string[] => subsets(name).flatMap((s) => (s.addresses ?? []).map((a) => `${a.targetRef?.name ?? ''}@${a.ip ?? ''}`)).sort();
  const createPod = async (object: KubeObject): Promise<void> => {
    pods.strategy.defaults(object);
    await pods.create(userScope(), object);
  };
  const createService = async (object: KubeObject): Promise<void> => {
    services.strategy.defaults(object);
    await services.create(userScope(), object);
  };

  before(async () => {
    world = await startControllerWorld();
    services = world.storeOf({ group: '', resource: 'services' });
    pods = world.storeOf({ group: '', resource: 'pods' });
    endpoints = await world.informer({ group: '', resource: 'endpoints' });
    controller = startEndpointsController({
      informers: { services: await world.informer({ group: '', resource: 'services' }), pods: await world.informer({ group: '', resource: 'pods' }), endpoints },
      storage: world.storage,
      events: world.events,
      logger: world.logger,
    });
    await createPod(pod('web-a', 'a'));
    await createPod(pod('web-b', 'b'));
    await createPod(pod('db-a', 'a', 'db'));
  });
  after(async () => {
    await controller?.stop();
    await world?.stop();
  });

  it('endpoints controller lists the ready pods of all sites behind a Service', async () => {
    await createService({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { tier: 'front' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } });
    await eventually('the Endpoints object exists', () => endpoints.get(testCluster, 'web') !== undefined);
    assert.deepEqual(subsets('web'), [], 'no pod has an IP yet');
    assert.deepEqual(endpoints.get(testCluster, 'web')?.metadata.labels, { tier: 'front' });
    await world.setPodStatus('web-a', { phase: 'Running', ready: true, podIP: '10.1.0.5' });
    await world.setPodStatus('web-b', { phase: 'Running', ready: true, podIP: '10.1.0.5' });
    await world.setPodStatus('db-a', { phase: 'Running', ready: true, podIP: '10.1.0.6' });
    await eventually('both sites are listed', () => addresses('web').length === 2);
    assert.deepEqual(addresses('web'), ['web-a@10.1.0.5', 'web-b@10.1.0.5']);
    assert.deepEqual(subsets('web')[0]?.ports, [{ name: 'http', port: 8080, protocol: 'TCP' }]);
  });

  it('endpoints controller moves a pod that stops being ready to notReadyAddresses', async () => {
    await world.setPodStatus('web-b', { phase: 'Running', ready: false, podIP: '10.1.0.5' });
    await eventually('web-b is not ready', () => subsets('web')[0]?.notReadyAddresses?.[0]?.targetRef?.name === 'web-b');
    assert.deepEqual(addresses('web'), ['web-a@10.1.0.5']);
  });

  it('endpoints controller writes only when something changed', async () => {
    const before = endpoints.get(testCluster, 'web')?.metadata.resourceVersion;
    await services.update(userScope(), 'web', (s) => ({ ...s, metadata: { ...s.metadata, annotations: { note: 'x' } } }), { retryOnConflict: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(endpoints.get(testCluster, 'web')?.metadata.resourceVersion, before);
  });

  it('endpoints controller leaves Services without a selector alone and removes the Endpoints of a deleted Service', async () => {
    await createService({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'external' }, spec: { ports: [{ port: 80 }] } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(endpoints.get(testCluster, 'external'), undefined);
    await services.delete(userScope(), 'web', {});
    await eventually('the Endpoints go with the Service', () => endpoints.get(testCluster, 'web') === undefined);
  });
});
