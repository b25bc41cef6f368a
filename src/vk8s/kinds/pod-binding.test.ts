import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { systemClock } from '../../common/clock.js';
import { openMemoryStore } from '../../store/memory/index.js';
import type { Store } from '../../store/types.js';
import { VirtualClusterStorage } from '../cluster-storage.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { specOf } from './workload-types.js';
import { injectSidecar } from '../../api/sidecar-injection.js';
import { StatusError } from '../../apimachinery/errors/status-error.js';

const scope: RequestScope = { cluster: { tenant: 'acme', namespace: 'default', name: 'vk1' }, dryRun: false, fieldManager: 'edgeplane-scheduler' };

describe('pod binding through the pods store', () => {
  let store: Store;
  let pods: GenericStore;
  let storage: VirtualClusterStorage;

  before(async () => {
    store = openMemoryStore();
    storage = new VirtualClusterStorage({ store, clock: systemClock() });
    pods = storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-1', labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } };
    pods.strategy.defaults(pod);
    await pods.create(scope, pod);
  });
  after(async () => {
    storage.stop();
    await store.close();
  });

  const bind = (node: string, extra: (pod: KubeObject) => void = () => {}): Promise<KubeObject> =>
    pods.update(
      scope,
      'web-1',
      (current) => {
        current.spec = { ...specOf<PodSpec>(current), nodeName: node };
        current.status = { ...(current.status as object), conditions: [{ type: 'PodScheduled', status: 'True' }] };
        extra(current);
        return current;
      },
      { subresource: 'binding' },
    );

  it('pod binding is refused through the main resource, as kube validation forbids spec changes', async () => {
    await assert.rejects(
      pods.update(scope, 'web-1', (current) => ({ ...current, spec: { ...specOf<PodSpec>(current), nodeName: 'site-a-node-1' } })),
      /pod updates may not change fields/,
    );
  });

  it('pod binding sets nodeName and status only, once', async () => {
    const bound = await bind('site-a-node-1', (pod) => {
      pod.metadata.labels = { app: 'other' };
      (pod.spec as PodSpec).restartPolicy = 'Never';
    });
    assert.equal(specOf<PodSpec>(bound).nodeName, 'site-a-node-1');
    assert.equal(specOf<PodSpec>(bound).restartPolicy, 'Always', 'other spec fields keep their stored value');
    assert.deepEqual(bound.metadata.labels, { app: 'web' }, 'metadata keeps its stored value');
    assert.deepEqual((bound.status as { conditions: unknown }).conditions, [{ type: 'PodScheduled', status: 'True' }]);
    await assert.rejects(bind('site-a-node-2'), /already assigned to node "site-a-node-1"/);
  });
});

describe('sidecar injection through the pods store', () => {
  let store: Store;
  let pods: GenericStore;
  let storage: VirtualClusterStorage;
  const guaranteed = { limits: { cpu: '500m', memory: '256Mi' } };

  before(() => {
    store = openMemoryStore();
    storage = new VirtualClusterStorage({ store, clock: systemClock() });
    pods = storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;
  });
  after(async () => {
    storage.stop();
    await store.close();
  });

  const create = async (name: string, spec: Record<string, unknown> = { containers: [{ name: 'web', image: 'nginx', resources: guaranteed }] }, annotations?: Record<string, string>): Promise<KubeObject> => {
    const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name, ...(annotations === undefined ? {} : { annotations }) }, spec };
    pods.strategy.defaults(pod);
    return pods.create(scope, pod);
  };
  const bindInjecting = (name: string, node: string, change: (pod: KubeObject) => KubeObject = (p) => p): Promise<KubeObject> =>
    pods.update(
      scope,
      name,
      (current) => {
        current.spec = { ...specOf<PodSpec>(current), nodeName: node };
        current.status = { ...(current.status as object), conditions: [{ type: 'PodScheduled', status: 'True' }] };
        return change(injectSidecar(current, '1.4.0'));
      },
      { subresource: 'binding' },
    );

  it('a binding write that carries the sidecar stores the pod as injectSidecar makes it, valid for the vK8s, with its QoS class recomputed', async () => {
    const created = await create('inj-1');
    assert.equal((created.status as { qosClass: string }).qosClass, 'Guaranteed');
    const bound = await bindInjecting('inj-1', 'site-a-node-1');
    const expected = injectSidecar({ ...created, spec: { ...specOf<PodSpec>(created), nodeName: 'site-a-node-1' } }, '1.4.0');
    assert.deepEqual(bound.spec, expected.spec);
    assert.equal(bound.metadata.annotations?.['svc.io/sidecar-injected'], 'true');
    assert.equal((bound.status as { qosClass: string }).qosClass, 'Burstable', 'the sidecar sets no CPU limit');
    // What defaulting would add is already there, and every later update validates.
    const defaulted = structuredClone(bound);
    pods.strategy.defaults(defaulted);
    assert.deepEqual(defaulted.spec, bound.spec);
    assert.deepEqual(pods.strategy.validateUpdate(bound, bound, { cluster: scope.cluster, now: '2026-01-01T00:00:00Z' }), []);
    const relabelled = await pods.update(scope, 'inj-1', (live) => ({ ...live, metadata: { ...live.metadata, labels: { v: '2' } } }));
    assert.equal(specOf<PodSpec>(relabelled).containers?.length, 2);
  });

  it('the binding takes the injection exactly as injectSidecar makes it, and nothing else of the write', async () => {
    await create('inj-2');
    const bound = await bindInjecting('inj-2', 'site-a-node-1', (pod) => {
      const spec = specOf<PodSpec>(pod);
      spec.containers = [...(spec.containers ?? []).map((c) => (c.name === 'edgeplane-sidecar' ? { ...c, securityContext: { privileged: true } } : c)), { name: 'extra', image: 'evil' }];
      spec.restartPolicy = 'Never';
      pod.metadata.labels = { sneaky: 'yes' };
      return pod;
    });
    const spec = specOf<PodSpec>(bound);
    assert.deepEqual(spec.containers?.map((c) => c.name), ['web', 'edgeplane-sidecar']);
    assert.deepEqual(spec.containers?.[1]?.securityContext, { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    assert.equal(spec.restartPolicy, 'Always');
    assert.equal(bound.metadata.labels, undefined);
  });

  it('a bound or injected pod is not injected again', async () => {
    await create('inj-3');
    const plain = await pods.update(
      scope,
      'inj-3',
      (current) => ({ ...current, spec: { ...specOf<PodSpec>(current), nodeName: 'site-a-node-1' } }),
      { subresource: 'binding' },
    );
    assert.equal(specOf<PodSpec>(plain).containers?.length, 1);
    const again = await bindInjecting('inj-3', 'site-a-node-1');
    assert.equal(specOf<PodSpec>(again).containers?.length, 1, 'already bound: the binding injects nothing');
  });

  it('a pod of its own with the sidecar\'s container name, volume, mount path or mark is refused at create with 422', async () => {
    const refused = async (name: string, spec: Record<string, unknown>, annotations?: Record<string, string>): Promise<string[]> => {
      try {
        await create(name, spec, annotations);
      } catch (error) {
        assert.ok(error instanceof StatusError && error.code === 422, String(error));
        return (error.details?.causes ?? []).map((c) => `${c.field}: ${c.message}`);
      }
      return assert.fail(`${name} was created`);
    };
    assert.deepEqual(await refused('own-1', { containers: [{ name: 'edgeplane-sidecar', image: 'mine' }] }), [
      'spec.containers[0].name: Invalid value: "edgeplane-sidecar": is reserved for the workload sidecar the platform injects',
    ]);
    assert.deepEqual(
      await refused('own-2', {
        initContainers: [{ name: 'init', image: 'busybox', volumeMounts: [{ name: 'ids', mountPath: '/svc/secrets/identity/' }] }],
        containers: [{ name: 'web', image: 'nginx', volumeMounts: [{ name: 'ids', mountPath: '/svc/secrets/identity' }] }],
        volumes: [{ name: 'ids', emptyDir: {} }],
      }),
      [
        'spec.initContainers[0].volumeMounts[0].mountPath: Invalid value: "/svc/secrets/identity/": is reserved for the workload sidecar the platform injects: its identity files are mounted there',
        'spec.containers[0].volumeMounts[0].mountPath: Invalid value: "/svc/secrets/identity": is reserved for the workload sidecar the platform injects: its identity files are mounted there',
      ],
    );
    assert.deepEqual(await refused('own-3', { containers: [{ name: 'web', image: 'nginx' }], volumes: [{ name: 'edgeplane-identity', emptyDir: {} }] }), [
      'spec.volumes[0].name: Invalid value: "edgeplane-identity": is reserved for the workload sidecar the platform injects',
    ]);
    assert.deepEqual(await refused('own-4', { containers: [{ name: 'web', image: 'nginx' }] }, { 'svc.io/sidecar-injected': 'true' }), [
      'metadata.annotations[svc.io/sidecar-injected]: Forbidden: is reserved for the workload sidecar the platform injects: it marks a pod the sidecar was injected into',
    ]);
    // A neighbouring path is the pod's own business.
    await create('own-5', { containers: [{ name: 'web', image: 'nginx', volumeMounts: [{ name: 'v', mountPath: '/svc/secrets' }] }], volumes: [{ name: 'v', emptyDir: {} }] });
  });
});
