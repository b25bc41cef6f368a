import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../observability/logger.js';
import type { GenericStore } from '../../registry/generic-store.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { fakeClock } from '../../common/clock.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../../vk8s/cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { createEventRecorder, type StoreEventRecorder } from './event-recorder.js';

const vk1: ClusterRef = { tenant: 'acme', namespace: 'prod', name: 'vk1' };
const silent = createLogger({ level: 'silent' });
const deployment = (name: string, uid = `uid-${name}`): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'prod', uid, resourceVersion: '42' },
});

describe('event recorder over a memory store', () => {
  let store: Store;
  let storage: VirtualClusterStorage;
  let events: GenericStore;
  const clock = fakeClock(new Date('2025-03-01T10:00:00Z'));
  let recorder: StoreEventRecorder;

  const list = async (): Promise<KubeObject[]> => (await events.list(vk1, {})).items;
  const about = async (name: string): Promise<KubeObject[]> => (await list()).filter((e) => (e['involvedObject'] as { name: string }).name === name);

  before(async () => {
    store = openMemoryStore();
    storage = new VirtualClusterStorage({ store, clock });
    await storage.start();
    events = storage.storeFor({ group: '', resource: 'events' }) as GenericStore;
    recorder = createEventRecorder({ storage, clock, logger: silent, host: 'cp-1' });
  });
  after(async () => {
    storage.stop();
    await store.close();
  });

  it('event recorder writes a core/v1 Event like kube-controller-manager', async () => {
    recorder.record(vk1, deployment('web'), 'Normal', 'ScalingReplicaSet', 'Scaled up replica set web-5d8f to 3', 'deployment-controller');
    await recorder.idle();
    const [event, ...rest] = await about('web');
    assert.equal(rest.length, 0);
    assert.ok(event);
    assert.match(event.metadata.name ?? '', /^web\.[0-9a-f]+$/);
    assert.equal(BigInt('0x' + (event.metadata.name ?? '').split('.')[1]), BigInt(Date.parse('2025-03-01T10:00:00Z')) * 1_000_000n);
    assert.equal(event.metadata.namespace, 'prod');
    assert.deepEqual(event['involvedObject'], { kind: 'Deployment', namespace: 'prod', name: 'web', uid: 'uid-web', apiVersion: 'apps/v1', resourceVersion: '42' });
    assert.deepEqual(
      [event['type'], event['reason'], event['message'], event['count'], event['firstTimestamp'], event['lastTimestamp']],
      ['Normal', 'ScalingReplicaSet', 'Scaled up replica set web-5d8f to 3', 1, '2025-03-01T10:00:00Z', '2025-03-01T10:00:00Z'],
    );
    assert.deepEqual(event['source'], { component: 'deployment-controller', host: 'cp-1' });
    assert.deepEqual([event['reportingComponent'], event['reportingInstance'], event['eventTime']], ['deployment-controller', 'cp-1', null]);
  });

  it('event recorder writes the source host it is given (kubelet\'s events name the node)', async () => {
    recorder.record(vk1, deployment('hosted'), 'Normal', 'Killing', 'Stopping container web', 'kubelet', 're-a-n0');
    await recorder.idle();
    const [event] = await about('hosted');
    assert.deepEqual([event?.['source'], event?.['reportingInstance']], [{ component: 'kubelet', host: 're-a-n0' }, 're-a-n0']);
  });

  it('event recorder aggregates repeats within ten minutes into count and lastTimestamp', async () => {
    const object = deployment('agg');
    recorder.record(vk1, object, 'Warning', 'FailedCreate', 'quota exceeded');
    clock.advance(60_000);
    recorder.record(vk1, object, 'Warning', 'FailedCreate', 'quota exceeded');
    recorder.record(vk1, object, 'Warning', 'FailedCreate', 'quota exceeded');
    recorder.record(vk1, object, 'Warning', 'FailedCreate', 'another message');
    await recorder.idle();
    let found = await about('agg');
    assert.equal(found.length, 2);
    const repeated = found.find((e) => e['message'] === 'quota exceeded');
    assert.deepEqual([repeated?.['count'], repeated?.['firstTimestamp'], repeated?.['lastTimestamp']], [3, '2025-03-01T10:00:00Z', '2025-03-01T10:01:00Z']);
    assert.equal((repeated?.['source'] as { component: string }).component, 'edgeplane-controller-manager');
    clock.advance(10 * 60_000 + 1000);
    recorder.record(vk1, object, 'Warning', 'FailedCreate', 'quota exceeded');
    await recorder.idle();
    found = await about('agg');
    assert.equal(found.filter((e) => e['message'] === 'quota exceeded').length, 2, 'after the window a new Event starts');
  });

  it('event recorder writes a new Event when the aggregated one was deleted', async () => {
    const object = deployment('gone');
    recorder.record(vk1, object, 'Normal', 'Started', 'started');
    await recorder.idle();
    const [first] = await about('gone');
    await events.delete({ cluster: vk1, dryRun: false, fieldManager: 'test' }, first?.metadata.name ?? '', {});
    clock.advance(1000);
    recorder.record(vk1, object, 'Normal', 'Started', 'started');
    await recorder.idle();
    const found = await about('gone');
    assert.equal(found.length, 1);
    assert.notEqual(found[0]?.metadata.name, first?.metadata.name);
    assert.equal(found[0]?.['count'], 1);
  });

  it('event recorder rate-limits one object with a token bucket', async () => {
    const limited = createEventRecorder({ storage, clock, logger: silent, burst: 3, refillMs: 60_000 });
    const object = deployment('hot');
    for (let i = 0; i < 10; i++) limited.record(vk1, object, 'Warning', 'BackOff', `attempt ${i}`);
    limited.record(vk1, deployment('cold'), 'Normal', 'Other', 'another object has its own bucket');
    await limited.idle();
    assert.equal((await about('hot')).length, 3);
    assert.equal((await about('cold')).length, 1);
    assert.equal(limited.dropped, 7);
    clock.advance(60_000);
    limited.record(vk1, object, 'Warning', 'BackOff', 'one more after a refill');
    limited.record(vk1, object, 'Warning', 'BackOff', 'but not two');
    await limited.idle();
    assert.equal((await about('hot')).length, 4);
    assert.equal(limited.dropped, 8);
  });

  it('event recorder bounds the writes in flight', async () => {
    const bounded = createEventRecorder({ storage, clock, logger: silent, maxPending: 2 });
    for (let i = 0; i < 5; i++) bounded.record(vk1, deployment(`burst-${i}`), 'Normal', 'Created', 'created');
    assert.equal(bounded.dropped, 3);
    await bounded.idle();
    assert.equal((await list()).filter((e) => (e['involvedObject'] as { name: string }).name.startsWith('burst-')).length, 2);
  });

  it('event recorder puts events about cluster-scoped objects in the cluster namespace', async () => {
    const node: KubeObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'site-a-node-1', uid: 'node-uid' } };
    recorder.record(vk1, node, 'Normal', 'NodeReady', 'Node site-a-node-1 status is now: NodeReady', 'node-controller');
    await recorder.idle();
    const [event] = await about('site-a-node-1');
    assert.equal(event?.metadata.namespace, 'prod');
    assert.deepEqual(event?.['involvedObject'], { kind: 'Node', namespace: '', name: 'site-a-node-1', uid: 'site-a-node-1', apiVersion: 'v1', resourceVersion: '' }, 'uid is the name, as kubelet writes it');
  });

  it('event recorder never throws and logs failures', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', destination: new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) }) });
    const failing = { storeFor: () => ({ create: () => Promise.reject(new Error('store down')), update: () => Promise.reject(new Error('store down')) }) as unknown as GenericStore };
    const broken = createEventRecorder({ storage: failing, clock, logger });
    assert.doesNotThrow(() => broken.record(vk1, deployment('x'), 'Normal', 'Created', 'created'));
    assert.doesNotThrow(() => broken.record(vk1, { apiVersion: 'v1', kind: 'Pod', metadata: {} }, 'Normal', 'Created', 'no name'));
    assert.doesNotThrow(() => broken.record(vk1, null as unknown as KubeObject, 'Normal', 'Created', 'not even an object'));
    await broken.idle();
    assert.equal(lines.filter((l) => l.includes('could not record an event')).length, 2);
    assert.ok(lines.some((l) => l.includes('store down')));
  });

  it('event recorder cuts messages to kube limit', async () => {
    recorder.record(vk1, deployment('long'), 'Warning', 'Long', 'x'.repeat(2000));
    await recorder.idle();
    const [event] = await about('long');
    assert.equal((event?.['message'] as string).length, 1024);
  });
});
