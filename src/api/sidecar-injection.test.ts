import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../apimachinery/object.js';
import type { PodSpec } from './pod-spec-types.js';
import { injectedSidecarVersion, injectSidecar, isSidecarInjected } from './sidecar-injection.js';

const pod = (): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-1', annotations: { team: 'a' } },
  spec: {
    initContainers: [{ name: 'setup', image: 'busybox', volumeMounts: [{ name: 'data', mountPath: '/data' }] }],
    containers: [
      { name: 'web', image: 'nginx', volumeMounts: [{ name: 'data', mountPath: '/data' }] },
      { name: 'log', image: 'busybox' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
  },
});

const IDENTITY_RO = { name: 'edgeplane-identity', readOnly: true, mountPath: '/svc/secrets/identity' };

describe('sidecar injection', () => {
  it('injectSidecar appends the sidecar last, adds the identity volume, mounts it read-only in every other container and marks the pod', () => {
    const injected = injectSidecar(pod(), '1.4.0');
    const spec = injected.spec as PodSpec;
    assert.deepEqual(spec.containers?.map((c) => c.name), ['web', 'log', 'edgeplane-sidecar']);
    assert.deepEqual(spec.containers?.[2], {
      name: 'edgeplane-sidecar',
      image: 'edgeplane/sidecar:1.4.0',
      resources: { limits: { memory: '160Mi' }, requests: { cpu: '10m', memory: '48Mi' } },
      volumeMounts: [{ name: 'edgeplane-identity', mountPath: '/svc/secrets/identity' }],
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
      imagePullPolicy: 'Never',
      securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
    });
    assert.deepEqual(spec.containers?.[0]?.volumeMounts, [{ name: 'data', mountPath: '/data' }, IDENTITY_RO]);
    assert.deepEqual(spec.containers?.[1]?.volumeMounts, [IDENTITY_RO]);
    assert.deepEqual(spec.initContainers?.[0]?.volumeMounts, [{ name: 'data', mountPath: '/data' }, IDENTITY_RO]);
    assert.deepEqual(spec.volumes, [{ name: 'data', emptyDir: {} }, { name: 'edgeplane-identity', emptyDir: { medium: 'Memory' } }]);
    assert.deepEqual(injected.metadata.annotations, { 'kubectl.kubernetes.io/default-container': 'web', team: 'a', 'svc.io/sidecar-injected': 'true' });
    assert.equal(isSidecarInjected(injected), true);
    assert.equal(injectedSidecarVersion(injected), '1.4.0');
  });

  it('injectSidecar leaves its argument alone and adds no init containers to a pod without them', () => {
    const original = pod();
    delete (original.spec as PodSpec).initContainers;
    delete original.metadata.annotations;
    const before = structuredClone(original);
    const injected = injectSidecar(original, '1.4.0');
    assert.deepEqual(original, before);
    assert.equal('initContainers' in (injected.spec as PodSpec), false);
    assert.deepEqual(injected.metadata.annotations, { 'kubectl.kubernetes.io/default-container': 'web', 'svc.io/sidecar-injected': 'true' });
  });

  it('injectSidecar keeps a default container the pod names', () => {
    const named = pod();
    named.metadata.annotations = { 'kubectl.kubernetes.io/default-container': 'log' };
    assert.equal(injectSidecar(named, '1.4.0').metadata.annotations?.['kubectl.kubernetes.io/default-container'], 'log');
  });

  it('injectSidecar is idempotent: an injected pod, or one with the sidecar container, is not injected again', () => {
    const once = injectSidecar(pod(), '1.4.0');
    assert.equal(injectSidecar(once, '2.0.0'), once);
    const annotatedOnly: KubeObject = { ...pod(), metadata: { name: 'p', annotations: { 'svc.io/sidecar-injected': 'true' } } };
    assert.equal(injectSidecar(annotatedOnly, '1.4.0'), annotatedOnly);
    const named: KubeObject = { ...pod(), spec: { containers: [{ name: 'edgeplane-sidecar', image: 'x' }] } };
    assert.equal(injectSidecar(named, '1.4.0'), named);
    assert.equal(isSidecarInjected(pod()), false);
  });

  it('injectedSidecarVersion needs the mark and an edgeplane/sidecar image with a tag', () => {
    const injected = injectSidecar(pod(), '1.4.0');
    assert.equal(injectedSidecarVersion({ ...injected, metadata: { name: 'p' } }), undefined, 'no mark');
    const retagged = (image: string): KubeObject => ({ ...injected, spec: { ...(injected.spec as PodSpec), containers: [{ name: 'edgeplane-sidecar', image }] } });
    assert.equal(injectedSidecarVersion(retagged('evil/sidecar:1.4.0')), undefined);
    assert.equal(injectedSidecarVersion(retagged('edgeplane/sidecar:')), undefined);
    assert.equal(injectedSidecarVersion(pod()), undefined);
  });
});
