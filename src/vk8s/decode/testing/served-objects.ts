import type { ExpectedKind } from '../decode-object.js';

/** A realistic request body of one served kind, with the kind its endpoint expects. */
export interface ServedObject {
  readonly expected: ExpectedKind;
  readonly body: Record<string, unknown>;
}

const podSpec = {
  containers: [
    {
      name: 'nginx',
      image: 'nginx:1.17',
      args: ['--port', '80'],
      ports: [{ containerPort: 80, protocol: 'TCP', name: 'http' }],
      env: [{ name: 'A', value: '1' }, { name: 'POD', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
      resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
      livenessProbe: { httpGet: { path: '/healthz', port: 'http' }, initialDelaySeconds: 5, periodSeconds: 10 },
      volumeMounts: [{ name: 'config', mountPath: '/etc/config', readOnly: true }],
      securityContext: { runAsNonRoot: true, runAsUser: 1000, allowPrivilegeEscalation: false },
    },
  ],
  volumes: [{ name: 'config', configMap: { name: 'web-config', defaultMode: 420 } }],
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  nodeSelector: { 'kubernetes.io/os': 'linux' },
  tolerations: [{ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 }],
};
const template = { metadata: { labels: { app: 'web' } }, spec: podSpec };
const meta = (name: string): Record<string, unknown> => ({ name, namespace: 'default', labels: { app: 'web' }, annotations: { note: 'x' } });

/** Realistic request bodies of every kind the virtual cluster serves, as kubectl sends them (test data), already in the form decoding returns. */
export const SERVED_OBJECTS: readonly ServedObject[] = [
  {
    expected: { group: 'apps', version: 'v1', kind: 'Deployment' },
    body: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: meta('web'),
      spec: {
        replicas: 3,
        selector: { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }] },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        template,
      },
    },
  },
  {
    expected: { group: 'apps', version: 'v1', kind: 'StatefulSet' },
    body: {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: meta('db'),
      spec: {
        serviceName: 'db',
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        template,
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
      },
    },
  },
  {
    expected: { group: 'batch', version: 'v1', kind: 'Job' },
    body: { apiVersion: 'batch/v1', kind: 'Job', metadata: meta('once'), spec: { backoffLimit: 4, completions: 1, parallelism: 1, template: { spec: { ...podSpec, restartPolicy: 'Never' } } } },
  },
  {
    expected: { group: 'batch', version: 'v1beta1', kind: 'CronJob' },
    body: {
      apiVersion: 'batch/v1beta1',
      kind: 'CronJob',
      metadata: meta('nightly'),
      spec: { schedule: '0 3 * * *', concurrencyPolicy: 'Forbid', suspend: false, jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'OnFailure' } } } } },
    },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Pod' },
    body: { apiVersion: 'v1', kind: 'Pod', metadata: meta('web-0'), spec: podSpec, status: { phase: 'Running', podIP: '10.0.0.5', startTime: '2020-01-02T03:04:05Z' } },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Service' },
    body: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta('web'),
      spec: {
        type: 'NodePort',
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, targetPort: 8080, protocol: 'TCP', nodePort: 30080 },
          { name: 'metrics', port: 9090, targetPort: 'metrics' },
        ],
        sessionAffinity: 'None',
      },
    },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Endpoints' },
    body: { apiVersion: 'v1', kind: 'Endpoints', metadata: meta('web'), subsets: [{ addresses: [{ ip: '10.0.0.5', targetRef: { kind: 'Pod', name: 'web-0' } }], ports: [{ port: 8080, protocol: 'TCP' }] }] },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Secret' },
    body: { apiVersion: 'v1', kind: 'Secret', metadata: meta('creds'), type: 'Opaque', data: { password: 'aHVudGVyMg==' }, stringData: { user: 'admin' } },
  },
  {
    expected: { group: '', version: 'v1', kind: 'ConfigMap' },
    body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('web-config'), data: { 'app.properties': 'a=1\nb=2\n' }, binaryData: { 'logo.png': 'iVBORw0KGgo=' } },
  },
  {
    expected: { group: '', version: 'v1', kind: 'PersistentVolumeClaim' },
    body: { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: meta('data'), spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', volumeMode: 'Filesystem', resources: { requests: { storage: '10Gi' } } } },
  },
  {
    expected: { group: '', version: 'v1', kind: 'ServiceAccount' },
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('builder'), secrets: [{ name: 'builder-token' }], imagePullSecrets: [{ name: 'registry' }], automountServiceAccountToken: false },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Event' },
    body: {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: meta('web-0.15f'),
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-0', apiVersion: 'v1' },
      reason: 'Scheduled',
      message: 'Successfully assigned default/web-0',
      source: { component: 'default-scheduler' },
      firstTimestamp: '2020-01-02T03:04:05Z',
      lastTimestamp: '2020-01-02T03:04:05Z',
      eventTime: '2020-01-02T03:04:05.123456Z',
      count: 1,
      type: 'Normal',
    },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Node' },
    body: {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'site-a', labels: { 'kubernetes.io/hostname': 'site-a' } },
      spec: { podCIDR: '10.244.0.0/24', taints: [{ key: 'edge', value: 'true', effect: 'NoSchedule' }] },
      status: {
        capacity: { cpu: '4', memory: '8Gi', pods: '110' },
        allocatable: { cpu: '3800m', memory: '7Gi', pods: '110' },
        conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2020-01-02T03:04:05Z', lastTransitionTime: '2020-01-02T03:04:05Z' }],
        addresses: [{ type: 'InternalIP', address: '192.168.1.10' }],
        nodeInfo: { kubeletVersion: 'v1.17.0', osImage: 'Linux', architecture: 'amd64', operatingSystem: 'linux', machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: 'k', containerRuntimeVersion: 'c', kubeProxyVersion: 'p' },
      },
    },
  },
  {
    expected: { group: '', version: 'v1', kind: 'Namespace' },
    body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } },
  },
  {
    expected: { group: '', version: 'v1', kind: 'PersistentVolume' },
    body: {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: { capacity: { storage: '10Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Delete', hostPath: { path: '/data/pv-1' }, claimRef: { namespace: 'default', name: 'data' } },
    },
  },
  {
    expected: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
    body: { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name: 'web', namespace: 'default' }, spec: { replicas: 5 } },
  },
];
