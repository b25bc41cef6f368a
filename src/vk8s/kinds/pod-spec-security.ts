import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { validateLocalDescendingPath } from './pod-spec-paths.js';
import { unixIdProblems } from './pod-spec-syntax.js';
import type { PodSpec } from '../../api/pod-spec-types.js';

/** Pod-level security: the pod security context and the security annotations (core validation, 1.17). */

const SYSCTL_SEGMENT = '[a-z0-9]([-_a-z0-9]*[a-z0-9])?';
const SYSCTL = `(${SYSCTL_SEGMENT}\\.)*${SYSCTL_SEGMENT}`;
const SYSCTL_PATTERN = new RegExp(`^${SYSCTL}$`);

/** ValidatePodSecurityContext plus validateHostNetwork; `field` is the spec's path. */
export function validatePodSecurityContext(spec: PodSpec, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const context = spec.securityContext;
  if (context == null) return causes;
  const at = `${field}.securityContext`;
  if (spec.hostNetwork === true) {
    (spec.containers ?? []).forEach((container, i) => {
      (container.ports ?? []).forEach((port, j) => {
        if ((port.hostPort ?? 0) !== (port.containerPort ?? 0)) {
          causes.push(fieldError.invalid(`${field}.containers[${i}].ports[${j}].containerPort`, port.containerPort ?? 0, 'must match `hostPort` when `hostNetwork` is true'));
        }
      });
    });
  }
  for (const key of ['fsGroup', 'runAsUser', 'runAsGroup'] as const) {
    const id = context[key];
    if (id != null) causes.push(...unixIdProblems(id).map((p) => fieldError.invalid(`${at}.${key}`, id, p)));
  }
  (context.supplementalGroups ?? []).forEach((gid, i) => causes.push(...unixIdProblems(gid).map((p) => fieldError.invalid(`${at}.supplementalGroups[${i}]`, gid, p))));
  if (spec.shareProcessNamespace === true && spec.hostPID === true) {
    causes.push(fieldError.invalid(`${at}.shareProcessNamespace`, true, 'ShareProcessNamespace and HostPID cannot both be enabled'));
  }
  const names = new Set<string>();
  (context.sysctls ?? []).forEach((sysctl, i) => {
    const name = sysctl.name ?? '';
    if (name === '') causes.push(fieldError.required(`${at}.sysctls[${i}].name`));
    else if (name.length > 253 || !SYSCTL_PATTERN.test(name)) causes.push(fieldError.invalid(`${at}.sysctls[${i}].name`, name, `must have at most 253 characters and match regex ${SYSCTL}`));
    else if (names.has(name)) causes.push(fieldError.duplicate(`${at}.sysctls[${i}].name`, name));
    names.add(name);
  });
  return causes;
}

const MIRROR = 'kubernetes.io/config.mirror';
const SECCOMP_POD = 'seccomp.security.alpha.kubernetes.io/pod';
const SECCOMP_CONTAINER = 'container.seccomp.security.alpha.kubernetes.io/';
const APPARMOR_CONTAINER = 'container.apparmor.security.beta.kubernetes.io/';

function validateSeccompProfile(profile: string, field: string): StatusCause[] {
  if (profile === 'runtime/default' || profile === 'docker/default' || profile === 'unconfined') return [];
  if (profile.startsWith('localhost/')) return validateLocalDescendingPath(profile.slice('localhost/'.length), field);
  return [fieldError.invalid(field, profile, 'must be a valid seccomp profile')];
}

/** ValidatePodSpecificAnnotations: mirror pods need a node; seccomp and AppArmor profiles. */
export function validatePodSpecificAnnotations(annotations: Readonly<Record<string, string>> | null | undefined, spec: PodSpec, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const all = annotations ?? {};
  const mirror = all[MIRROR];
  if (mirror != null && (spec.nodeName ?? '') === '') causes.push(fieldError.invalid(`${field}[${MIRROR}]`, mirror, 'must set spec.nodeName if mirror pod annotation is set'));
  if (all[SECCOMP_POD] != null) causes.push(...validateSeccompProfile(all[SECCOMP_POD], `${field}.${SECCOMP_POD}`));
  for (const [key, value] of Object.entries(all)) {
    if (key.startsWith(SECCOMP_CONTAINER)) causes.push(...validateSeccompProfile(value, `${field}.${key}`));
  }
  const containerNames = new Set([...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c) => c.name ?? ''));
  for (const [key, value] of Object.entries(all)) {
    if (!key.startsWith(APPARMOR_CONTAINER)) continue;
    const container = key.slice(APPARMOR_CONTAINER.length);
    if (!containerNames.has(container)) causes.push(fieldError.invalid(`${field}[${key}]`, container, 'container not found'));
    if (value !== '' && value !== 'runtime/default' && value !== 'unconfined' && !value.startsWith('localhost/')) {
      causes.push(fieldError.invalid(`${field}[${key}]`, value, `invalid AppArmor profile name: ${JSON.stringify(value)}`));
    }
  }
  return causes;
}
