import type { PodSecurityView } from '../../api/pod-security/index.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** Where a kind keeps the pod it runs: the pod itself, a workload's template, a CronJob's job template's. */
export function podTemplateOf(object: KubeObject): PodSecurityView | undefined {
  const spec = (object['spec'] ?? {}) as Record<string, unknown>;
  let template: PodTemplateSpec | undefined;
  switch (object.kind) {
    case 'Pod':
      return { annotations: object.metadata.annotations ?? {}, spec: spec };
    case 'Deployment':
    case 'ReplicaSet':
    case 'StatefulSet':
    case 'DaemonSet':
    case 'Job':
      template = spec['template'] as PodTemplateSpec | undefined;
      break;
    case 'CronJob':
      template = ((spec['jobTemplate'] as { spec?: { template?: PodTemplateSpec } } | undefined)?.spec?.template);
      break;
    default:
      return undefined;
  }
  return { annotations: template?.metadata?.annotations ?? {}, spec: template?.spec ?? {} };
}
