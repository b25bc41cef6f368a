import type { KubeObject } from '../object.js';

const podTemplate = { metadata: { creationTimestamp: null }, spec: { containers: null } };

/**
 * What kube-apiserver 1.17's typed conversion makes of a kind's Go zero value — the object
 * an apply that creates starts from. Fields without `omitempty` and non-pointer structs
 * survive: nested `creationTimestamp: null`, `serviceName: ""`, `status.replicas: 0`. They
 * matter because such an apply records them under `before-first-apply`, so that (as in kube)
 * applying a StatefulSet's `serviceName` or a CronJob's `schedule` on create conflicts unless
 * forced. Keyed by OpenAPI definition; other kinds start from apiVersion, kind and metadata.
 */
const ZERO_VALUES: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  'io.k8s.api.apps.v1.Deployment': { spec: { selector: null, template: podTemplate, strategy: {} }, status: {} },
  'io.k8s.api.apps.v1.ReplicaSet': { spec: { selector: null, template: podTemplate }, status: { replicas: 0 } },
  'io.k8s.api.apps.v1.StatefulSet': { spec: { selector: null, template: podTemplate, serviceName: '', updateStrategy: {} }, status: { replicas: 0 } },
  'io.k8s.api.apps.v1.DaemonSet': {
    spec: { selector: null, template: podTemplate, updateStrategy: {} },
    status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
  },
  'io.k8s.api.batch.v1.Job': { spec: { template: podTemplate }, status: {} },
  'io.k8s.api.batch.v1beta1.CronJob': { spec: { schedule: '', jobTemplate: { metadata: { creationTimestamp: null }, spec: { template: podTemplate } } }, status: {} },
  'io.k8s.api.core.v1.Pod': { spec: { containers: null }, status: {} },
  'io.k8s.api.core.v1.PodTemplate': { template: podTemplate },
  'io.k8s.api.core.v1.Service': { spec: {}, status: { loadBalancer: {} } },
  'io.k8s.api.core.v1.PersistentVolumeClaim': { spec: { resources: {} }, status: {} },
};

/** A fresh zero object of a kind, as the starting point of an apply that creates it. */
export function zeroObject(definition: string, apiVersion: string, kind: string): KubeObject {
  return { apiVersion, kind, metadata: { creationTimestamp: null }, ...structuredClone(ZERO_VALUES[definition] ?? {}) };
}
