import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultPodSpec } from './pod-spec-defaults.js';
import type { Container, PodSpec } from '../../api/pod-spec-types.js';
import { validatePodSpec, validatePodTemplateSpec } from './pod-spec-validation.js';
import { printed } from './workload-test-support.js';

/** The problems of a pod spec after defaulting, as `field: message` lines. */
function problems(spec: PodSpec): string[] {
  defaultPodSpec(spec);
  return printed(validatePodSpec(spec, 'spec'));
}

const web = (extra: Partial<Container> = {}): Container => ({ name: 'web', image: 'nginx', ...extra });

describe('pod spec validation', () => {
  it('accepts a defaulted minimal spec', () => {
    assert.deepEqual(problems({ containers: [web()] }), []);
  });

  it('requires containers and unique names across init containers', () => {
    assert.deepEqual(problems({ containers: [] }), ['spec.containers: Required value']);
    assert.deepEqual(problems({ containers: [web(), web()], initContainers: [web({ readinessProbe: { exec: { command: ['true'] } } })] }), [
      'spec.containers[1].name: Duplicate value: "web"',
      'spec.initContainers[0].name: Duplicate value: "web"',
      'spec.initContainers[0].readinessProbe: Invalid value: {"exec":{"command":["true"]},"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3}: must not be set for init containers',
    ]);
  });

  it('validates volumes: names, one source, source fields (an invalid volume does not claim its name)', () => {
    assert.deepEqual(
      problems({
        containers: [web()],
        volumes: [
          { name: 'a', emptyDir: {}, secret: { secretName: 's' } },
          { name: 'b', secret: { defaultMode: 0o1000 } },
          { name: 'b', configMap: { name: 'c', items: [{ key: 'k', path: '../x' }] } },
          { name: 'Bad_Name', persistentVolumeClaim: {} },
        ],
      }),
      [
        'spec.volumes[0].secret: Forbidden: may not specify more than 1 volume type',
        'spec.volumes[1].secret.secretName: Required value',
        'spec.volumes[1].secret.defaultMode: Invalid value: 512: must be a number between 0 and 0777 (octal), both inclusive',
        `spec.volumes[2].configMap.items[0].path: Invalid value: "../x": must not contain '..'`,
        'spec.volumes[3].persistentVolumeClaim.claimName: Required value',
        "spec.volumes[3].name: Invalid value: \"Bad_Name\": a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
      ],
    );
  });

  it('validates probes and handlers', () => {
    assert.deepEqual(
      problems({
        containers: [
          web({
            livenessProbe: { successThreshold: 2 },
            readinessProbe: { exec: { command: ['true'] }, tcpSocket: { port: 80 } },
            lifecycle: { preStop: { httpGet: { port: 0, scheme: 'FTP', httpHeaders: [{ name: 'Bad Header' }] } } },
          }),
        ],
      }),
      [
        'spec.containers[0].lifecycle.preStop.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
        'spec.containers[0].lifecycle.preStop.httpGet.scheme: Unsupported value: "FTP": supported values: "HTTP", "HTTPS"',
        "spec.containers[0].lifecycle.preStop.httpGet.httpHeaders: Invalid value: \"Bad Header\": a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')",
        'spec.containers[0].livenessProbe: Required value: must specify a handler type',
        'spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1',
        'spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type',
      ],
    );
  });

  it('validates resources: names, quantities, requests within limits', () => {
    assert.deepEqual(
      problems({
        containers: [
          web({
            resources: {
              limits: { cpu: '500m', memory: 'lots', gpu: '1' },
              requests: { cpu: '1', 'example.com/dongle': '0.5', 'hugepages-2Mi': '2Mi' },
            },
          }),
        ],
      }),
      [
        "spec.containers[0].resources.limits[memory]: Invalid value: \"lots\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource type or fully qualified',
        'spec.containers[0].resources.limits[gpu]: Invalid value: "gpu": must be a standard resource for containers',
        'spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit',
        'spec.containers[0].resources.requests[example.com/dongle]: Invalid value: "500m": must be an integer',
        'spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
        'spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources',
      ],
    );
  });

  it('validates env sources, ports, pull policy and mounts', () => {
    assert.deepEqual(
      problems({
        containers: [
          web({
            imagePullPolicy: 'Sometimes',
            env: [
              { name: 'A', value: 'x', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
              { name: 'B', valueFrom: {} },
              { name: 'C', valueFrom: { fieldRef: { fieldPath: 'spec.hostname' } } },
            ],
            envFrom: [{ prefix: '9X' }],
            ports: [
              { containerPort: 80, hostPort: 8080 },
              { containerPort: 81, hostPort: 8080 },
            ],
            volumeMounts: [
              { name: 'data', mountPath: '/d', subPath: '/abs' },
              { name: 'data', mountPath: '/d' },
            ],
          }),
        ],
        volumes: [{ name: 'data', emptyDir: {} }],
      }),
      [
        'spec.containers[0].env[0].valueFrom: Invalid value: "": may not be specified when `value` is not empty',
        'spec.containers[0].env[1].valueFrom: Invalid value: "": must specify one of: `fieldRef`, `resourceFieldRef`, `configMapKeyRef` or `secretKeyRef`',
        'spec.containers[0].env[2].valueFrom.fieldRef.fieldPath: Invalid value: "spec.hostname": error converting fieldPath: field label not supported: spec.hostname',
        "spec.containers[0].envFrom[0].prefix: Invalid value: \"9X\": a valid environment variable name must consist of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit (e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation is '[-._a-zA-Z][-._a-zA-Z0-9]*')",
        'spec.containers[0].envFrom: Invalid value: "": must specify one of: `configMapRef` or `secretRef`',
        'spec.containers[0].volumeMounts.subPath: Invalid value: "/abs": must be a relative path',
        'spec.containers[0].volumeMounts[1].mountPath: Invalid value: "/d": must be unique',
        'spec.containers[0].imagePullPolicy: Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"',
        // Host ports are compared across all containers after the per-container rules.
        'spec.containers[0].ports[1].hostPort: Duplicate value: "TCP//8080"',
      ],
    );
  });

  it('validates policies, DNS, scheduling and security', () => {
    assert.deepEqual(
      problems({
        containers: [web({ securityContext: { privileged: true, runAsUser: -1 } })],
        restartPolicy: 'Sometimes',
        dnsPolicy: 'None',
        nodeSelector: { 'bad key!': 'v' },
        securityContext: { fsGroup: -5 },
        tolerations: [{ operator: 'Equal', value: 'x' }, { key: 'k', effect: 'NoSchedule', tolerationSeconds: 5 }],
        affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } },
        activeDeadlineSeconds: 0,
        hostname: 'Host',
      }),
      [
        'spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy',
        'spec.containers[0].securityContext.runAsUser: Invalid value: -1: must be between 0 and 2147483647, inclusive',
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
        "spec.nodeSelector: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        'spec.securityContext.fsGroup: Invalid value: -5: must be between 0 and 2147483647, inclusive',
        'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term',
        'spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None',
        'spec.activeDeadlineSeconds: Invalid value: 0: must be between 1 and 2147483647, inclusive',
        "spec.hostname: Invalid value: \"Host\": a DNS-1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        'spec.tolerations[0].operator: Invalid value: "Equal": operator must be Exists when `key` is empty, which means "match all values and all keys"',
        "spec.tolerations[1].effect: Invalid value: \"NoSchedule\": effect must be 'NoExecute' when `tolerationSeconds` is set",
      ],
    );
  });

  it('reports template labels and annotations at kube paths', () => {
    const template = { metadata: { labels: { app: 'web/x' }, annotations: { 'container.apparmor.security.beta.kubernetes.io/ghost': 'runtime/default' } }, spec: { containers: [web()] } };
    defaultPodSpec(template.spec);
    assert.deepEqual(printed(validatePodTemplateSpec(template, 'spec.template')), [
      "spec.template.labels: Invalid value: \"web/x\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
      'spec.template.annotations[container.apparmor.security.beta.kubernetes.io/ghost]: Invalid value: "ghost": container not found',
    ]);
  });

  it('refuses in a pod template what the platform\'s sidecar injection reserves', () => {
    const template = {
      metadata: { annotations: { 'svc.io/sidecar-injected': 'false' } },
      spec: {
        containers: [{ ...web(), volumeMounts: [{ name: 'ids', mountPath: '/svc//secrets/identity' }] }, { ...web(), name: 'edgeplane-sidecar' }],
        volumes: [{ name: 'ids', emptyDir: {} }, { name: 'edgeplane-identity', emptyDir: {} }],
      },
    };
    defaultPodSpec(template.spec);
    assert.deepEqual(printed(validatePodTemplateSpec(template, 'spec.template')), [
      'spec.template.annotations[svc.io/sidecar-injected]: Forbidden: is reserved for the workload sidecar the platform injects: it marks a pod the sidecar was injected into',
      'spec.template.spec.volumes[1].name: Invalid value: "edgeplane-identity": is reserved for the workload sidecar the platform injects',
      'spec.template.spec.containers[0].volumeMounts[0].mountPath: Invalid value: "/svc//secrets/identity": is reserved for the workload sidecar the platform injects: its identity files are mounted there',
      'spec.template.spec.containers[1].name: Invalid value: "edgeplane-sidecar": is reserved for the workload sidecar the platform injects',
    ]);
  });
});
