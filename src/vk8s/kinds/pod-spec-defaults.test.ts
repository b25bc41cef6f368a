import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPodSpec, defaultPodTemplateSpec } from './pod-spec-defaults.js';
import { defaultPullPolicy, parseImageReference } from './pod-spec-image.js';
import { canonicalQuantity } from '../../api/pod-spec-resources.js';
import type { PodSpec, PodTemplateSpec } from '../../api/pod-spec-types.js';
import { validatePodSpec } from './pod-spec-validation.js';

describe('pod spec defaults', () => {
  it('picks the pull policy from the image tag as kube parses references', () => {
    const cases: Array<[string, string]> = [
      ['nginx', 'Always'],
      ['nginx:latest', 'Always'],
      ['nginx:1.19', 'IfNotPresent'],
      ['localhost:5000/team/app', 'Always'],
      ['localhost:5000/team/app:v2', 'IfNotPresent'],
      ['nginx@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'IfNotPresent'],
      ['Nginx', 'IfNotPresent'],
      ['', 'IfNotPresent'],
    ];
    for (const [image, policy] of cases) assert.equal(defaultPullPolicy(image), policy, image);
    assert.deepEqual(parseImageReference('gcr.io/proj/img:v1@sha256:0123456789abcdef0123456789abcdef'), {
      name: 'gcr.io/proj/img',
      tag: 'v1',
      digest: 'sha256:0123456789abcdef0123456789abcdef',
    });
  });

  it('prints quantities canonically, rounded up to milli precision', () => {
    assert.equal(canonicalQuantity('0.5'), '500m');
    assert.equal(canonicalQuantity('1000m'), '1');
    assert.equal(canonicalQuantity(2), '2');
    assert.equal(canonicalQuantity('1024Mi'), '1Gi');
    assert.equal(canonicalQuantity('0.0001'), '1m');
    assert.equal(canonicalQuantity('bogus'), 'bogus');
  });

  it('fills container, probe, handler, port, env and volume defaults', () => {
    const spec: PodSpec = {
      hostNetwork: true,
      containers: [
        {
          name: 'app',
          image: 'app:1',
          ports: [{ containerPort: 9000, protocol: 'UDP' }],
          env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } }],
          livenessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 5 },
          lifecycle: { postStart: { httpGet: { port: 80 } } },
          resources: { requests: { memory: '1.5Gi' } },
        },
      ],
      volumes: [
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
        { name: 'disk', azureDisk: { diskName: 'd', diskURI: 'u' } },
      ],
    };
    defaultPodSpec(spec);
    assert.deepEqual(spec.containers?.[0], {
      name: 'app',
      image: 'app:1',
      ports: [{ containerPort: 9000, protocol: 'UDP', hostPort: 9000 }],
      env: [{ name: 'CPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '0' } } }],
      livenessProbe: { tcpSocket: { port: 9000 }, periodSeconds: 5, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 },
      lifecycle: { postStart: { httpGet: { port: 80, path: '/', scheme: 'HTTP' } } },
      resources: { requests: { memory: '1536Mi' } },
      imagePullPolicy: 'IfNotPresent',
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    assert.deepEqual(spec.volumes, [
      { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels', apiVersion: 'v1' } }], defaultMode: 420 } },
      { name: 'token', projected: { sources: [{ serviceAccountToken: { path: 'token', expirationSeconds: 3600 } }], defaultMode: 420 } },
      { name: 'disk', azureDisk: { diskName: 'd', diskURI: 'u', cachingMode: 'ReadWrite', kind: 'Shared', fsType: 'ext4', readOnly: false } },
    ]);
  });

  it('gives templates their serialized metadata and a defaulted spec, but not the pod-only defaults', () => {
    const template: PodTemplateSpec = { spec: { containers: [{ name: 'a', image: 'a', resources: { limits: { cpu: '1' } } }] } };
    defaultPodTemplateSpec(template);
    assert.deepEqual(template.metadata, { creationTimestamp: null });
    assert.deepEqual(template.spec?.containers?.[0]?.resources, { limits: { cpu: '1' } });
    assert.equal(template.spec?.enableServiceLinks, undefined);
    const empty: PodTemplateSpec = {};
    defaultPodTemplateSpec(empty);
    assert.equal(empty.spec?.restartPolicy, 'Always');
  });

  it('treats JSON null like an absent field, as Go decoding does', () => {
    const spec = JSON.parse(
      '{"containers":[{"name":"a","image":"a","livenessProbe":null,"lifecycle":{"postStart":null},"env":[{"name":"X","valueFrom":{"fieldRef":null,"secretKeyRef":{"name":"s","key":"k"}}}],"resources":null}],"volumes":[{"name":"v","hostPath":null}],"securityContext":null}',
    ) as PodSpec;
    defaultPodSpec(spec);
    assert.deepEqual(spec.volumes, [{ name: 'v', hostPath: null, emptyDir: {} }]);
    assert.deepEqual(spec.securityContext, {});
    assert.deepEqual(spec.containers?.[0]?.resources, {});
    assert.deepEqual(validatePodSpec(spec, 'spec'), []);
  });
});
