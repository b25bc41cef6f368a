import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { CONTAINER_FLAVOR_ANNOTATION_PREFIX, FLAVOR_ANNOTATION } from '../../site-api/site-model.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { containerNamesOf, jobTemplateMetaOf, podSpecOf } from './workload-templates.js';

/** The kinds whose flavor annotations are checked at admission. */
export const FLAVORED_KINDS: ReadonlySet<string> = new Set(['Deployment', 'ReplicaSet', 'StatefulSet', 'DaemonSet', 'Job', 'CronJob', 'Pod']);

/**
 * Checks an object's flavor annotations (on its metadata, where the seed puts them; for a
 * CronJob also on its job template's metadata, which becomes its Jobs' metadata):
 * `svc.io/workload-flavor` and `svc.io/workload-flavor-<container>` must name one of
 * `allowed`, and `<container>` must be a container (or init container) of the pod
 * template. On update, a value unchanged from `old` is not checked against `allowed` again
 * (a flavor object deleted since does not block other changes). Returns kube field causes
 * (`metadata.annotations[svc.io/workload-flavor]: Unsupported value: …`). Pure.
 */
export function validateFlavorAnnotations(object: KubeObject, options: { readonly allowed: readonly string[]; readonly old?: KubeObject }): StatusCause[] {
  if (!FLAVORED_KINDS.has(object.kind)) return [];
  const containers = containerNamesOf(podSpecOf(object));
  const sources: Array<{ path: string; annotations: Record<string, string> | null | undefined; old: Record<string, string> | null | undefined }> = [
    { path: 'metadata.annotations', annotations: object.metadata.annotations, old: options.old?.metadata.annotations },
  ];
  if (object.kind === 'CronJob') {
    const old = options.old === undefined ? undefined : jobTemplateMetaOf(options.old);
    sources.push({ path: 'spec.jobTemplate.metadata.annotations', annotations: jobTemplateMetaOf(object)?.annotations, old: old?.annotations });
  }
  const causes: StatusCause[] = [];
  for (const source of sources) {
    for (const [key, value] of Object.entries(source.annotations ?? {})) {
      const field = `${source.path}[${key}]`;
      const perContainer = key.startsWith(CONTAINER_FLAVOR_ANNOTATION_PREFIX);
      if (key !== FLAVOR_ANNOTATION && !perContainer) continue;
      const unchanged = source.old?.[key] === value;
      if (!unchanged && !options.allowed.includes(value.trim())) causes.push(fieldError.notSupported(field, value, options.allowed));
      if (perContainer) {
        const container = key.slice(CONTAINER_FLAVOR_ANNOTATION_PREFIX.length);
        if (!containers.includes(container)) {
          const known = containers.length === 0 ? 'it has none' : `it has ${containers.map((c) => JSON.stringify(c)).join(', ')}`;
          causes.push(fieldError.invalid(field, value, `the pod template has no container named ${JSON.stringify(container)}: ${known}`));
        }
      }
    }
  }
  return causes;
}
