import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123SubdomainProblems, qualifiedNameProblems } from '../../apimachinery/validation/names.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { baseStrategy, keepStatus, resourceOf } from './base-strategy.js';
import { podBindingStrategy } from './pod-binding.js';
import { reservedSidecarProblemsOfPod } from './pod-sidecar-reservation.js';
import { defaultPodOnlyFields, defaultPodSpec } from './pod-spec-defaults.js';
import { dropDisabledPodSpecFields } from './pod-spec-drop.js';
import { podQosClass } from '../../api/pod-spec-qos.js';
import { validatePodSpecificAnnotations } from './pod-spec-security.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { validatePodUpdate } from './pod-spec-update.js';
import { validatePodSpec } from './pod-spec-validation.js';
import { workloadStatusStrategy } from './workload-common.js';
import { goString, invalidRendered } from './workload-go-value.js';
import { ensureSpec, specOf, statusOf } from './workload-types.js';

interface ContainerStatus {
  name?: string;
  state?: { terminated?: { exitCode?: number } };
}

interface PodStatus {
  phase?: string;
  podIP?: string;
  podIPs?: Array<{ ip?: string }>;
  nominatedNodeName?: string;
  conditions?: Array<{ type?: string }>;
  containerStatuses?: ContainerStatus[];
  initContainerStatuses?: ContainerStatus[];
}

const APPARMOR = 'container.apparmor.security.beta.kubernetes.io/';
const MIRROR = 'kubernetes.io/config.mirror';

/** ValidatePod's pod-only rules (beyond the spec's). */
function validatePod(object: KubeObject): StatusCause[] {
  const spec = specOf<PodSpec>(object);
  const causes = [...validatePodSpecificAnnotations(object.metadata.annotations, spec, 'metadata.annotations'), ...validatePodSpec(spec, 'spec')];
  if ((spec.serviceAccountName ?? '') === '') {
    (spec.volumes ?? []).forEach((volume, vi) => {
      (volume.projected?.sources ?? []).forEach((source, si) => {
        if (source.serviceAccountToken != null) {
          causes.push(fieldError.forbidden(`spec.volumes[${vi}].projected.sources[${si}].serviceAccountToken`, 'must not be specified when serviceAccountName is not set'));
        }
      });
    });
  }
  for (const list of ['containers', 'initContainers'] as const) {
    (spec[list] ?? []).forEach((container, i) => {
      const image = container.image ?? '';
      if (image.trim() !== image) causes.push(fieldError.invalid(`spec.${list}[${i}].image`, image, 'must not have leading or trailing whitespace'));
    });
  }
  const hugePages = new Set<string>();
  for (const container of spec.containers ?? []) {
    for (const name of [...Object.keys(container.resources?.requests ?? {}), ...Object.keys(container.resources?.limits ?? {})]) {
      if (name.startsWith('hugepages-')) hugePages.add(name);
    }
  }
  if (hugePages.size > 1) {
    const rendered = `sets.String{${[...hugePages].sort().map((n) => `${goString(n)}:sets.Empty{}`).join(', ')}}`;
    causes.push(invalidRendered('spec', rendered, 'must use a single hugepage size in a pod spec'));
  }
  return causes;
}

/** ValidatePodSpecificAnnotationUpdates: AppArmor and mirror-pod annotations are fixed at creation. */
function validateAnnotationUpdates(object: KubeObject, old: KubeObject): StatusCause[] {
  const now = object.metadata.annotations ?? {};
  const before = old.metadata.annotations ?? {};
  const causes: StatusCause[] = [];
  for (const [key, value] of Object.entries(before)) {
    if (now[key] === value) continue;
    if (key.startsWith(APPARMOR)) causes.push(fieldError.forbidden(`metadata.annotations[${key}]`, 'may not remove or update AppArmor annotations'));
    if (key === MIRROR) causes.push(fieldError.forbidden(`metadata.annotations[${key}]`, 'may not remove or update mirror pod annotation'));
  }
  for (const key of Object.keys(now)) {
    if (Object.hasOwn(before, key)) continue;
    if (key.startsWith(APPARMOR)) causes.push(fieldError.forbidden(`metadata.annotations[${key}]`, 'may not add AppArmor annotations'));
    if (key === MIRROR) causes.push(fieldError.forbidden(`metadata.annotations[${key}]`, 'may not add mirror pod annotation'));
  }
  return causes;
}

const SYSTEM_CONDITIONS = new Set(['PodScheduled', 'Ready', 'Initialized']);

/** ValidateContainerStateTransition: under Never/OnFailure, finished containers stay finished. */
function validateStateTransitions(now: readonly ContainerStatus[], before: readonly ContainerStatus[], field: string, restartPolicy: string | undefined): StatusCause[] {
  if (restartPolicy === 'Always') return [];
  const causes: StatusCause[] = [];
  before.forEach((old, i) => {
    const terminated = old.state?.terminated;
    if (terminated == null) return;
    if ((terminated.exitCode ?? 0) !== 0 && restartPolicy === 'OnFailure') return;
    for (const status of now) {
      if (status.name === old.name && status.state?.terminated == null) causes.push(fieldError.forbidden(`${field}[${i}].state`, 'may not be transitioned to non-terminated state'));
    }
  });
  return causes;
}

/** ValidatePodStatusUpdate. */
function validatePodStatus(object: KubeObject, old: KubeObject): StatusCause[] {
  const status = statusOf<PodStatus>(object);
  const before = statusOf<PodStatus>(old);
  const causes: StatusCause[] = [];
  (status.conditions ?? []).forEach((condition, i) => {
    const type = condition.type ?? '';
    // kube reports these under metadata.conditions.
    if (!SYSTEM_CONDITIONS.has(type)) causes.push(...qualifiedNameProblems(type).map((p) => fieldError.invalid(`metadata.conditions[${i}].Type`, type, p)));
  });
  const nominated = status.nominatedNodeName ?? '';
  if (nominated !== '' && nominated !== (before.nominatedNodeName ?? '')) causes.push(...dns1123SubdomainProblems(nominated).map((p) => fieldError.invalid('status.nominatedNodeName', nominated, p)));
  const restartPolicy = specOf<PodSpec>(old).restartPolicy;
  causes.push(...validateStateTransitions(status.containerStatuses ?? [], before.containerStatuses ?? [], 'status.containerStatuses', restartPolicy));
  causes.push(...validateStateTransitions(status.initContainerStatuses ?? [], before.initContainerStatuses ?? [], 'status.initContainerStatuses', restartPolicy));
  return causes;
}

/**
 * pods (v1): kube-apiserver 1.17's podStrategy. Defaults include the pod-only ones (requests
 * from limits, enableServiceLinks); a new pod is Pending with its QoS class; the spec is
 * immutable but for images, activeDeadlineSeconds and added tolerations. DELETE answers with
 * the pod; the default grace period is the pod's terminationGracePeriodSeconds, but zero for
 * a pod no node runs (unscheduled, or already Succeeded/Failed), as kube's CheckGracefulDelete.
 * The platform's scheduler binds pods through `subresource: 'binding'` (pod-binding.ts), which
 * also injects the workload sidecar on sites that run it; what the injection adds is reserved
 * at create (pod-sidecar-reservation.ts).
 */
export const podStrategy = baseStrategy(resourceOf('', 'v1', 'pods'), {
  defaults: (object) => {
    const spec = ensureSpec<PodSpec>(object);
    defaultPodOnlyFields(spec);
    defaultPodSpec(spec);
  },
  prepareForCreate: (object) => {
    const spec = ensureSpec<PodSpec>(object);
    dropDisabledPodSpecFields(spec, undefined);
    object.status = { phase: 'Pending', qosClass: podQosClass(spec) };
  },
  prepareForUpdate: (object, old) => {
    keepStatus(object, old);
    dropDisabledPodSpecFields(ensureSpec<PodSpec>(object), specOf<PodSpec>(old));
  },
  validate: (object) => [...validatePod(object), ...reservedSidecarProblemsOfPod(object)],
  validateUpdate: (object, old) => [...validatePod(object), ...validateAnnotationUpdates(object, old), ...validatePodUpdate(specOf<PodSpec>(object), specOf<PodSpec>(old))],
  selectableFields: (object) => {
    const spec = specOf<PodSpec>(object);
    const status = statusOf<PodStatus>(object);
    return {
      'spec.nodeName': spec.nodeName ?? '',
      'spec.restartPolicy': spec.restartPolicy ?? '',
      'spec.schedulerName': spec.schedulerName ?? '',
      'spec.serviceAccountName': spec.serviceAccountName ?? '',
      'status.phase': status.phase ?? '',
      'status.podIP': status.podIPs?.[0]?.ip ?? status.podIP ?? '',
      'status.nominatedNodeName': status.nominatedNodeName ?? '',
    };
  },
  status: workloadStatusStrategy(validatePodStatus),
  binding: podBindingStrategy(),
  returnDeletedObject: true,
  defaultGracePeriodSeconds: (object) => {
    const phase = statusOf<PodStatus>(object).phase;
    const spec = specOf<PodSpec>(object);
    if ((spec.nodeName ?? '') === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
    return spec.terminationGracePeriodSeconds ?? 30;
  },
});
