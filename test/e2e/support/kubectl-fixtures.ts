import type { KubeObject } from '../../../src/apimachinery/object.js';

/** One object of each user-writable kind, as a multi-document YAML for `kubectl create -f`. */
export function userObjectsYaml(tag: string): string {
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-${tag}
  labels: {app: web-${tag}, tier: front}
spec:
  replicas: 2
  selector: {matchLabels: {app: web-${tag}}}
  template:
    metadata: {labels: {app: web-${tag}}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.17
        ports: [{containerPort: 80}]
        env: [{name: MODE, value: fast}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db-${tag}}
spec:
  serviceName: db-${tag}
  replicas: 1
  selector: {matchLabels: {app: db-${tag}}}
  template:
    metadata: {labels: {app: db-${tag}}}
    spec:
      containers: [{name: pg, image: postgres}]
---
apiVersion: batch/v1
kind: Job
metadata: {name: once-${tag}}
spec:
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: busybox:1.31, command: [echo, hi]}]
---
apiVersion: batch/v1beta1
kind: CronJob
metadata: {name: tick-${tag}}
spec:
  schedule: "*/5 * * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers: [{name: c, image: busybox:1.31}]
---
apiVersion: v1
kind: Service
metadata: {name: web-${tag}}
spec:
  selector: {app: web-${tag}}
  ports: [{name: http, port: 80}]
---
apiVersion: v1
kind: Secret
metadata: {name: creds-${tag}}
stringData: {user: admin, password: s3cret}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings-${tag}, labels: {tier: a}}
data: {mode: fast}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data-${tag}}
spec:
  accessModes: [ReadWriteOnce]
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot-${tag}}
`;
}

type Fixture = KubeObject & { status?: unknown };

const STARTED = '2026-01-01T00:00:00Z';

/** Objects only the platform writes (pods, replicasets, endpoints, events, PVs), with status; the pod runs on Node `edge-1` (site `edge`). */
export function platformObjects(): Fixture[] {
  const template = { metadata: { labels: { app: 'web', 'pod-template-hash': '5d4f8c' } }, spec: { containers: [{ name: 'nginx', image: 'nginx:1.17' }] } };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-5d4f8c', labels: { app: 'web', 'pod-template-hash': '5d4f8c' } },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': '5d4f8c' } }, template },
      status: { replicas: 2, readyReplicas: 1, availableReplicas: 1, fullyLabeledReplicas: 2, observedGeneration: 1 },
    },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-5d4f8c-x7k2p', labels: { app: 'web', 'pod-template-hash': '5d4f8c' } },
      spec: { nodeName: 'edge-1', containers: [{ name: 'nginx', image: 'nginx:1.17' }] },
      status: {
        phase: 'Running',
        podIP: '10.244.1.7',
        hostIP: '192.168.10.5',
        startTime: STARTED,
        conditions: [{ type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: STARTED }],
        containerStatuses: [{ name: 'nginx', ready: true, restartCount: 3, image: 'nginx:1.17', imageID: 'docker-pullable://nginx@sha256:ab', started: true, state: { running: { startedAt: STARTED } } }],
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.244.1.7' }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }],
    },
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.16a2b3c4d5e6f7a8' },
      involvedObject: { kind: 'Deployment', namespace: 'default', name: 'web', apiVersion: 'apps/v1' },
      reason: 'ScalingReplicaSet',
      message: 'Scaled up replica set web-5d4f8c to 2',
      source: { component: 'deployment-controller' },
      firstTimestamp: STARTED,
      lastTimestamp: STARTED,
      count: 1,
      type: 'Normal',
    },
    {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-1' },
      spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path: '/data/pv-1' }, storageClassName: 'local' },
      status: { phase: 'Available' },
    },
  ];
}
