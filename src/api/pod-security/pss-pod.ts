import type { Container, PodSpec, SecurityContext } from '../pod-spec-types.js';

/** What the Pod Security checks read of a pod (or of a workload's pod template). */
export interface PodSecurityView {
  readonly annotations: Readonly<Record<string, string>>;
  readonly spec: PodSpec;
}

/** One problem a check found: kube's forbidden reason and detail. */
export interface CheckResult {
  readonly reason: string;
  readonly detail: string;
}

/** The containers a check visits, in kube's order: init containers, containers, ephemeral containers. */
export function visitedContainers(spec: PodSpec): Container[] {
  return [...(spec.initContainers ?? []), ...(spec.containers ?? []), ...((spec.ephemeralContainers ?? []) as Container[])];
}

export const nameOf = (container: Container): string => container.name ?? '';

/** A security context's seccompProfile (a field since 1.19) or its profile type, when set. */
function seccompTypeOf(context: SecurityContext | Record<string, unknown> | undefined): string | undefined {
  const profile = (context as { seccompProfile?: { type?: unknown } } | undefined)?.seccompProfile;
  return typeof profile?.type === 'string' ? profile.type : undefined;
}

/** The seccomp annotations of Kubernetes 1.17 (the pod's; a container's is the prefix and its name), read where the field is absent. */
export const POD_SECCOMP_ANNOTATION = 'seccomp.security.alpha.kubernetes.io/pod';
export const CONTAINER_SECCOMP_ANNOTATION = 'container.seccomp.security.alpha.kubernetes.io/';

/** A seccomp annotation's value as a profile type (kube 1.19+'s conversion): undefined when it names none. */
function annotationSeccompType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value === 'runtime/default' || value === 'docker/default') return 'RuntimeDefault';
  if (value === 'unconfined') return 'Unconfined';
  if (value.startsWith('localhost/')) return 'Localhost';
  return value;
}

/**
 * The seccomp profile type a pod asks for: its security context's field, else its 1.17
 * annotation (`seccomp.security.alpha.kubernetes.io/pod`), as kube 1.19+ reads them.
 */
export function podSeccompType(pod: PodSecurityView): string | undefined {
  return seccompTypeOf(pod.spec.securityContext) ?? annotationSeccompType(pod.annotations[POD_SECCOMP_ANNOTATION]);
}

/** A container's own seccomp profile type: its field, else its annotation (`container.seccomp.security.alpha.kubernetes.io/<name>`). */
export function containerSeccompType(pod: PodSecurityView, container: Container): string | undefined {
  return seccompTypeOf(container.securityContext) ?? annotationSeccompType(pod.annotations[`${CONTAINER_SECCOMP_ANNOTATION}${nameOf(container)}`]);
}
