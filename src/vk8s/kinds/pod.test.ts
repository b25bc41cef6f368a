import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../apimachinery/object.js';
import { podStrategy } from './pod.js';
import { container, printed, runCreate, runUpdate, TEST_CONTEXT } from './workload-test-support.js';

function pod(spec: Record<string, unknown> = {}, name = 'web-0'): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default' }, spec: { containers: [container()], ...spec } };
}

describe('pod strategy', () => {
  it('defaults a pod, with the pod-only defaults, and starts it Pending with a QoS class', () => {
    const body = pod({
      serviceAccount: 'robot',
      containers: [
        {
          name: 'web',
          image: 'registry.local:5000/team/web',
          ports: [{ containerPort: 8080, name: 'http' }],
          env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          resources: { limits: { cpu: '1', memory: '128Mi' } },
          readinessProbe: { httpGet: { port: 'http' } },
        },
      ],
    });
    const { object, causes } = runCreate(podStrategy, body);
    assert.deepEqual(causes, []);
    assert.deepEqual(object.spec, {
      containers: [
        {
          name: 'web',
          image: 'registry.local:5000/team/web',
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          env: [{ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name', apiVersion: 'v1' } } }],
          resources: { limits: { cpu: '1', memory: '128Mi' }, requests: { cpu: '1', memory: '128Mi' } },
          readinessProbe: { httpGet: { port: 'http', path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 },
          imagePullPolicy: 'Always',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      serviceAccount: 'robot',
      serviceAccountName: 'robot',
      enableServiceLinks: true,
      dnsPolicy: 'ClusterFirst',
      restartPolicy: 'Always',
      securityContext: {},
      terminationGracePeriodSeconds: 30,
      schedulerName: 'default-scheduler',
    });
    assert.deepEqual(object.status, { phase: 'Pending', qosClass: 'Guaranteed' });
    assert.equal((runCreate(podStrategy, pod()).object.status as { qosClass: string }).qosClass, 'BestEffort');
    const burstable = pod({ containers: [{ ...container(), resources: { requests: { cpu: '100m' } } }] });
    assert.equal((runCreate(podStrategy, burstable).object.status as { qosClass: string }).qosClass, 'Burstable');
  });

  it('defaults volumes: emptyDir for no source, file modes, hostPath type', () => {
    const body = pod({
      volumes: [{ name: 'scratch' }, { name: 'cfg', configMap: { name: 'cfg' } }, { name: 'tls', secret: { secretName: 'tls' } }, { name: 'host', hostPath: { path: '/var/log' } }],
    });
    const { object, causes } = runCreate(podStrategy, body);
    assert.deepEqual(causes, []);
    assert.deepEqual((object.spec as { volumes: unknown }).volumes, [
      { name: 'scratch', emptyDir: {} },
      { name: 'cfg', configMap: { name: 'cfg', defaultMode: 420 } },
      { name: 'tls', secret: { secretName: 'tls', defaultMode: 420 } },
      { name: 'host', hostPath: { path: '/var/log', type: '' } },
    ]);
  });

  it('rejects invalid containers with kube paths and messages', () => {
    const body = pod({
      containers: [
        { name: 'Web', image: '', ports: [{ containerPort: 70000, protocol: 'ICMP', name: 'a-very-long-port-name' }] },
        { name: 'side', image: 'busybox', env: [{ name: '1BAD' }], volumeMounts: [{ name: 'missing', mountPath: '/data' }] },
      ],
    });
    assert.deepEqual(printed(runCreate(podStrategy, body).causes), [
      "spec.containers[0].name: Invalid value: \"Web\": a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      'spec.containers[0].image: Required value',
      'spec.containers[0].ports[0].name: Invalid value: "a-very-long-port-name": must be no more than 15 characters',
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
      'spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
      "spec.containers[1].env[0].name: Invalid value: \"1BAD\": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
      'spec.containers[1].volumeMounts[0].name: Not found: "missing"',
    ]);
  });

  it('makes the spec immutable but for images, deadline and added tolerations', () => {
    const stored = runCreate(podStrategy, pod({ tolerations: [{ key: 'a', operator: 'Exists' }] })).object;
    const spec = structuredClone(stored.spec) as Record<string, unknown> & { containers: Array<Record<string, unknown>>; tolerations: unknown[] };
    spec.containers = [{ ...spec.containers[0], image: 'nginx:1.20' }];
    spec.activeDeadlineSeconds = 60;
    spec.tolerations = [...spec.tolerations, { key: 'b', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 }];
    assert.deepEqual(runUpdate(podStrategy, stored, { ...stored, spec }).causes, []);

    const moved = { ...stored, spec: { ...(stored.spec as object), nodeName: 'node-2' } };
    assert.deepEqual(printed(runUpdate(podStrategy, stored, moved).causes), [
      'spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`, `spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations` (only additions to existing tolerations)',
    ]);
    const added = { ...stored, spec: { ...(stored.spec as object), containers: [container(), container('two')] } };
    assert.deepEqual(printed(runUpdate(podStrategy, stored, added).causes), ['spec.containers: Forbidden: pod updates may not add or remove containers']);
    const removed = { ...stored, spec: { ...(stored.spec as object), tolerations: [] } };
    assert.deepEqual(printed(runUpdate(podStrategy, stored, removed).causes), ['spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds']);
  });

  it('only lowers an active deadline', () => {
    const stored = runCreate(podStrategy, pod({ activeDeadlineSeconds: 30 })).object;
    const raised = { ...stored, spec: { ...(stored.spec as object), activeDeadlineSeconds: 60 } };
    assert.deepEqual(printed(runUpdate(podStrategy, stored, raised).causes), ['spec.activeDeadlineSeconds: Invalid value: 60: must be less than or equal to previous value']);
    const cleared = { ...stored, spec: { ...(stored.spec as object), activeDeadlineSeconds: undefined } };
    assert.deepEqual(printed(runUpdate(podStrategy, stored, cleared).causes), ['spec.activeDeadlineSeconds: Invalid value: "null": must not update from a positive integer to nil value']);
  });

  it('answers deletes with the object and picks the grace period like CheckGracefulDelete', () => {
    assert.equal(podStrategy.returnDeletedObject, true);
    const { object } = runCreate(podStrategy, pod({ terminationGracePeriodSeconds: 45 }));
    assert.equal(podStrategy.defaultGracePeriodSeconds?.(object), 0, 'unscheduled');
    const scheduled = { ...object, spec: { ...(object.spec as object), nodeName: 'node-1' } };
    assert.equal(podStrategy.defaultGracePeriodSeconds?.(scheduled), 45);
    assert.equal(podStrategy.defaultGracePeriodSeconds?.({ ...scheduled, status: { phase: 'Succeeded' } }), 0);
  });

  it('exposes the pod field selectors', () => {
    const { object } = runCreate(podStrategy, pod({ nodeName: 'node-1' }));
    assert.deepEqual(podStrategy.selectableFields({ ...object, status: { phase: 'Running', podIP: '10.0.0.7' } }), {
      'spec.nodeName': 'node-1',
      'spec.restartPolicy': 'Always',
      'spec.schedulerName': 'default-scheduler',
      'spec.serviceAccountName': '',
      'status.phase': 'Running',
      'status.podIP': '10.0.0.7',
      'status.nominatedNodeName': '',
    });
  });

  it('status writes keep the spec and keep finished containers finished', () => {
    const stored: KubeObject = {
      ...runCreate(podStrategy, pod({ restartPolicy: 'Never' })).object,
      status: { phase: 'Running', containerStatuses: [{ name: 'web', state: { terminated: { exitCode: 0 } } }] },
    };
    const write: KubeObject = { ...pod({ nodeName: 'elsewhere' }), status: { phase: 'Running', conditions: [{ type: 'bad type' }], containerStatuses: [{ name: 'web', state: { running: {} } }] } };
    podStrategy.status?.prepareForUpdate(write, stored);
    assert.deepEqual(write.spec, stored.spec);
    assert.deepEqual(printed(podStrategy.status?.validateUpdate(write, stored, TEST_CONTEXT) ?? []), [
      "metadata.conditions[0].Type: Invalid value: \"bad type\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      'status.containerStatuses[0].state: Forbidden: may not be transitioned to non-terminated state',
    ]);
  });
});
