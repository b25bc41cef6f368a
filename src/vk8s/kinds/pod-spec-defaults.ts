import { defaultContainer } from './pod-spec-container-defaults.js';
import { defaultResourceList } from '../../api/pod-spec-resources.js';
import type { PodSpec, PodTemplateSpec, TemplateMeta } from '../../api/pod-spec-types.js';
import { defaultVolume } from './pod-spec-volume-defaults.js';

/**
 * core/v1 SetDefaults_PodSpec and everything inside it, in place: dnsPolicy ClusterFirst,
 * restartPolicy Always, securityContext {}, terminationGracePeriodSeconds 30, schedulerName
 * default-scheduler, containers, init containers and volumes. Also the v1 conversion's mirror
 * of the deprecated `serviceAccount` field to and from `serviceAccountName`.
 */
export function defaultPodSpec(spec: PodSpec): void {
  if (spec.dnsPolicy == null || spec.dnsPolicy === '') spec.dnsPolicy = 'ClusterFirst';
  if (spec.restartPolicy == null || spec.restartPolicy === '') spec.restartPolicy = 'Always';
  spec.securityContext ??= {};
  spec.terminationGracePeriodSeconds ??= 30;
  if (spec.schedulerName == null || spec.schedulerName === '') spec.schedulerName = 'default-scheduler';
  if ((spec.serviceAccountName ?? '') === '' && (spec.serviceAccount ?? '') !== '') spec.serviceAccountName = spec.serviceAccount;
  if ((spec.serviceAccountName ?? '') !== '') spec.serviceAccount = spec.serviceAccountName;
  const hostNetwork = spec.hostNetwork === true;
  for (const container of spec.containers ?? []) defaultContainer(container, hostNetwork);
  for (const container of spec.initContainers ?? []) defaultContainer(container, hostNetwork);
  for (const volume of spec.volumes ?? []) defaultVolume(volume);
  defaultResourceList(spec.overhead);
}

/**
 * A pod template's defaults: the spec's, and the metadata Go always serializes
 * (`metadata: {creationTimestamp: null}`, since a template's ObjectMeta is not a pointer).
 */
export function defaultPodTemplateSpec(template: PodTemplateSpec): void {
  template.metadata = defaultTemplateMeta(template.metadata);
  template.spec ??= {};
  defaultPodSpec(template.spec);
}

/** Template metadata as kube returns it: `creationTimestamp: null` when unset. */
export function defaultTemplateMeta(meta: TemplateMeta | undefined): TemplateMeta {
  const result = meta ?? {};
  if (result.creationTimestamp == null) result.creationTimestamp = null;
  return result;
}

/**
 * SetDefaults_Pod, only for Pod objects (not templates): requests default to limits for every
 * resource that has a limit and no request, and enableServiceLinks to true. Run before
 * {@link defaultPodSpec}, as kube does.
 */
export function defaultPodOnlyFields(spec: PodSpec): void {
  for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    const limits = container.resources?.limits;
    if (limits == null) continue;
    const resources = (container.resources ??= {});
    const requests = (resources.requests ??= {});
    for (const [name, value] of Object.entries(limits)) {
      if (!Object.hasOwn(requests, name)) requests[name] = value;
    }
  }
  spec.enableServiceLinks ??= true;
}
