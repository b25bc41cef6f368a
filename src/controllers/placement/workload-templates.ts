import { asRecord, type PodSpec, type TemplateMeta } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';

/** Where a kind keeps its pod spec: a Pod its own, a CronJob in its job template, the others in `spec.template`. */
export function podSpecOf(object: KubeObject): PodSpec | undefined {
  const spec = asRecord(object['spec']);
  switch (object.kind) {
    case 'Pod':
      return spec;
    case 'CronJob':
      return asRecord(asRecord(asRecord(asRecord(spec?.['jobTemplate'])?.['spec'])?.['template'])?.['spec']);
    default:
      return asRecord(asRecord(spec?.['template'])?.['spec']);
  }
}

/** A CronJob's job template metadata: the metadata of the Jobs it makes. */
export function jobTemplateMetaOf(object: KubeObject): TemplateMeta | undefined {
  if (object.kind !== 'CronJob') return undefined;
  return asRecord(asRecord(asRecord(object['spec'])?.['jobTemplate'])?.['metadata']);
}

/** The names of a pod spec's containers and init containers. */
export function containerNamesOf(spec: PodSpec | undefined): string[] {
  return [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])].flatMap((c) => (typeof c.name === 'string' ? [c.name] : []));
}
