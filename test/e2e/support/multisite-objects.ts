import type { KubeObject } from '../../../src/apimachinery/object.js';
import { SITE_NAME_LABEL } from '../../../src/site-api/site-model.js';

export interface Condition {
  readonly type: string;
  readonly status: string;
  readonly reason?: string;
}

export type Pod = KubeObject & {
  spec: { nodeName?: string; containers: Array<{ name: string; image: string; env?: Array<{ name: string; value?: string }>; resources?: { limits?: Record<string, string>; requests?: Record<string, string> } }> };
  status?: { phase?: string; conditions?: Condition[]; podIP?: string };
};

/** A pod's site (its `svc.io/siteName` label). */
export const siteOf = (object: KubeObject): string => object.metadata.labels?.[SITE_NAME_LABEL] ?? '';

export const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Live objects (not being deleted) counted by site, sites in name order: `{ "re-a": 2, … }`. */
export function countBySite(objects: readonly KubeObject[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of objects) if (o.metadata.deletionTimestamp === undefined) counts[siteOf(o)] = (counts[siteOf(o)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export interface DeploymentOptions {
  readonly replicas?: number;
  readonly annotations?: Record<string, string>;
  readonly image?: string;
  /** Extra YAML lines of the container (indented by the caller to 8 spaces). */
  readonly container?: string;
}

/** A Deployment `name` (labels app=name) of one nginx container. */
export function deploymentYaml(name: string, o: DeploymentOptions = {}): string {
  const annotations = Object.entries(o.annotations ?? {}).map(([k, v]) => `\n    ${k}: "${v}"`).join('');
  return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}${annotations === '' ? '' : `\n  annotations:${annotations}`}
spec:
  replicas: ${o.replicas ?? 2}
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata: {labels: {app: ${name}}}
    spec:
      containers:
      - name: web
        image: ${o.image ?? 'nginx:1.17'}
        ports: [{containerPort: 80}]
${o.container ?? ''}`;
}

/** The pods of a label selector, for `list()`: `api/v1/namespaces/default/pods?labelSelector=app%3Dweb`. */
export function podsPath(selector: string): string {
  return `api/v1/namespaces/default/pods?labelSelector=${encodeURIComponent(selector)}`;
}
