import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { decodeBody } from './decode-body.js';
import { KUBERNETES_PROTOBUF_MAGIC } from './decode-kubernetes-protobuf.js';
import { kubernetesProto } from './kubernetes-proto.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const proto = kubernetesProto();

/** A body as client-go writes it: the magic, then a runtime.Unknown around the object's message (from the same schemas). */
function body(apiVersion: string, kind: string, message: string, object: Record<string, unknown>): Buffer {
  const type = proto.root.lookupType(message);
  const raw = type.encode(type.fromObject(object)).finish();
  const unknown = proto.root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
  const bytes = unknown.encode(unknown.fromObject({ typeMeta: { apiVersion, kind }, raw, contentEncoding: '', contentType: '' })).finish();
  return Buffer.concat([KUBERNETES_PROTOBUF_MAGIC, bytes]);
}

/** The empty metadata fields gogo writes for a new object (non-pointer fields are always on the wire). */
const wireMeta = (name: string): Record<string, unknown> => ({ name, generateName: '', namespace: '', selfLink: '', uid: '', resourceVersion: '', generation: 0, creationTimestamp: {}, clusterName: '' });

describe('decodeKubernetesProtobuf', () => {
  it('decodeBody reads a protobuf ConfigMap as its JSON form, dropping the zero values gogo writes', () => {
    const raw = body('v1', 'ConfigMap', 'k8s.io.api.core.v1.ConfigMap', { metadata: { ...wireMeta('x'), labels: { app: 'a' } }, data: { a: 'b' } });
    assert.deepEqual(decodeBody(raw, PROTOBUF, 'ConfigMap'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', creationTimestamp: null, labels: { app: 'a' } }, data: { a: 'b' } });
  });

  it('decodeBody reads a Secret with binary data as base64 and keeps a pointer field at false', () => {
    const raw = body('v1', 'Secret', 'k8s.io.api.core.v1.Secret', { metadata: wireMeta('s'), data: { bin: Buffer.from([0, 255, 1, 128]), t: Buffer.from('hi') }, type: 'Opaque', immutable: false });
    assert.deepEqual(decodeBody(raw, `${PROTOBUF}; charset=binary`, 'Secret'), {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', creationTimestamp: null },
      data: { bin: 'AP8BgA==', t: 'aGk=' },
      type: 'Opaque',
      immutable: false,
    });
  });

  it('decodeBody reads a Deployment: replicas 0 kept, int-or-string and quantities, times', () => {
    const raw = body('apps/v1', 'Deployment', 'k8s.io.api.apps.v1.Deployment', {
      metadata: { ...wireMeta('d'), creationTimestamp: { seconds: 1577934245 }, deletionGracePeriodSeconds: 0 },
      spec: {
        replicas: 0,
        paused: false,
        selector: { matchLabels: { app: 'd' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: { type: 1, strVal: '25%' }, maxUnavailable: { type: 0, intVal: 1 } } },
        template: {
          metadata: { labels: { app: 'd' }, creationTimestamp: {} },
          spec: { containers: [{ name: 'nginx', image: 'nginx', resources: { limits: { cpu: { string: '500m' } } }, ports: [{ containerPort: 80, hostPort: 0 }] }] },
        },
      },
      status: {},
    });
    assert.deepEqual(decodeBody(raw, PROTOBUF, 'Deployment'), {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', creationTimestamp: '2020-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 },
      spec: {
        replicas: 0,
        selector: { matchLabels: { app: 'd' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        template: {
          metadata: { labels: { app: 'd' }, creationTimestamp: null },
          spec: { containers: [{ name: 'nginx', image: 'nginx', resources: { limits: { cpu: '500m' } }, ports: [{ containerPort: 80 }] }] },
        },
      },
      status: {},
    });
  });

  it('decodeBody reads a Job with its command list and pointer fields', () => {
    const raw = body('batch/v1', 'Job', 'k8s.io.api.batch.v1.Job', {
      metadata: wireMeta('j'),
      spec: { backoffLimit: 0, template: { metadata: {}, spec: { restartPolicy: 'Never', containers: [{ name: 'j', image: 'busybox', command: ['sh', '-c', 'true'] }] } } },
    });
    assert.deepEqual(decodeBody(raw, PROTOBUF, 'Job'), {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'j', creationTimestamp: null },
      spec: { backoffLimit: 0, template: { metadata: {}, spec: { restartPolicy: 'Never', containers: [{ name: 'j', image: 'busybox', command: ['sh', '-c', 'true'] }] } } },
    });
  });

  it('decodeBody reads a meta/v1 DeleteOptions whatever group names it', () => {
    const raw = body('v1', 'DeleteOptions', 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions', { propagationPolicy: 'Foreground', gracePeriodSeconds: 0 });
    assert.deepEqual(decodeBody(raw, PROTOBUF), { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Foreground', gracePeriodSeconds: 0 });
  });

  it('decodeBody answers 400 for a protobuf body without the magic or of an unknown kind', () => {
    const badRequest = (raw: Buffer, message: RegExp): void =>
      assert.throws(() => decodeBody(raw, PROTOBUF, 'ConfigMap'), (error: unknown) => error instanceof StatusError && error.code === 400 && message.test(error.message));
    badRequest(Buffer.from('{"kind":"ConfigMap"}'), /^the object provided is unrecognized \(must be of type ConfigMap\): provided data does not appear to be a protobuf message, expected prefix \[107 56 115 0\]/);
    badRequest(body('v1', 'Gadget', 'k8s.io.api.core.v1.ConfigMap', {}), /no kind "Gadget" is registered for version "v1"/);
    badRequest(Buffer.concat([KUBERNETES_PROTOBUF_MAGIC, Buffer.from([0x0a, 0x7f])]), /must be of type ConfigMap/);
  });
});
