import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123LabelProblems, dns1123SubdomainProblems, qualifiedNameProblems } from '../../apimachinery/validation/names.js';
import { validateContainers, validateInitContainers } from './pod-spec-containers.js';
import { reservedSidecarProblems } from './pod-sidecar-reservation.js';
import { validateAffinity, validateTolerations } from './pod-spec-scheduling.js';
import { validatePodSecurityContext, validatePodSpecificAnnotations } from './pod-spec-security.js';
import { inclusiveRangeError, isIpAddress } from './pod-spec-syntax.js';
import type { PodDNSConfig, PodSpec, PodTemplateSpec } from '../../api/pod-spec-types.js';
import { validateVolumes } from './pod-spec-volumes.js';
import { goStringSlice, invalidRendered } from './workload-go-value.js';
import { validateAnnotations, validateLabels } from './workload-labels.js';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const MAX_INT32 = 2147483647;

/**
 * ValidatePodTemplateSpec (1.17): the template's labels and annotations (reported at
 * `<field>.labels` / `<field>.annotations`, as kube does), then the pod spec at `<field>.spec`;
 * then what the platform's sidecar injection reserves (pod-sidecar-reservation.ts).
 */
export function validatePodTemplateSpec(template: PodTemplateSpec, field: string): StatusCause[] {
  const spec = template.spec ?? {};
  return [
    ...validateLabels(template.metadata?.labels, `${field}.labels`),
    ...validateAnnotations(template.metadata?.annotations, `${field}.annotations`),
    ...validatePodSpecificAnnotations(template.metadata?.annotations, spec, `${field}.annotations`),
    ...validatePodSpec(spec, `${field}.spec`),
    ...reservedSidecarProblems(template.metadata?.annotations, spec, `${field}.annotations`, `${field}.spec`),
  ];
}

/** ValidatePodSpec (1.17), in kube's order of checks. */
export function validatePodSpec(spec: PodSpec, field: string): StatusCause[] {
  const volumes = validateVolumes(spec.volumes ?? [], `${field}.volumes`);
  const causes = [...volumes.causes];
  causes.push(...validateContainers(spec.containers ?? [], volumes.valid, `${field}.containers`));
  causes.push(...validateInitContainers(spec.initContainers ?? [], spec.containers ?? [], volumes.valid, `${field}.initContainers`));
  causes.push(...validateChoice(spec.restartPolicy, RESTART_POLICIES, `${field}.restartPolicy`));
  causes.push(...validateChoice(spec.dnsPolicy, DNS_POLICIES, `${field}.dnsPolicy`));
  causes.push(...validateLabels(spec.nodeSelector, `${field}.nodeSelector`));
  causes.push(...validatePodSecurityContext(spec, field));
  (spec.imagePullSecrets ?? []).forEach((secret, i) => {
    if (Object.keys(secret).some((key) => key !== 'name')) causes.push(fieldError.invalid(`${field}.imagePullSecrets[${i}]`, secret, 'only name may be set'));
  });
  causes.push(...validateAffinity(spec.affinity, `${field}.affinity`));
  causes.push(...validateDnsConfig(spec.dnsConfig, spec.dnsPolicy, `${field}.dnsConfig`));
  (spec.readinessGates ?? []).forEach((gate, i) => {
    const type = gate.conditionType ?? '';
    causes.push(...qualifiedNameProblems(type).map((p) => fieldError.invalid(`${field}.readinessGates[${i}].conditionType`, type, p)));
  });
  causes.push(...nameProblems(spec.serviceAccountName, `${field}.serviceAccountName`, dns1123SubdomainProblems));
  causes.push(...nameProblems(spec.nodeName, `${field}.nodeName`, dns1123SubdomainProblems));
  const deadline = spec.activeDeadlineSeconds;
  if (deadline != null && (deadline < 1 || deadline > MAX_INT32)) causes.push(fieldError.invalid(`${field}.activeDeadlineSeconds`, deadline, inclusiveRangeError(1, MAX_INT32)));
  causes.push(...nameProblems(spec.hostname, `${field}.hostname`, dns1123LabelProblems));
  causes.push(...nameProblems(spec.subdomain, `${field}.subdomain`, dns1123LabelProblems));
  causes.push(...validateTolerations(spec.tolerations ?? [], `${field}.tolerations`));
  for (const alias of spec.hostAliases ?? []) {
    if (!isIpAddress(alias.ip ?? '')) causes.push(fieldError.invalid(`${field}.hostAliases.ip`, alias.ip ?? '', 'must be valid IP address'));
    for (const hostname of alias.hostnames ?? []) causes.push(...dns1123SubdomainProblems(hostname).map((p) => fieldError.invalid(`${field}.hostAliases.hostnames`, hostname, p)));
  }
  causes.push(...nameProblems(spec.priorityClassName, `${field}.priorityClassName`, dns1123SubdomainProblems));
  if (spec.runtimeClassName != null) {
    causes.push(...dns1123SubdomainProblems(spec.runtimeClassName).map((p) => fieldError.invalid(`${field}.runtimeClassName`, spec.runtimeClassName, p)));
  }
  return causes;
}

/** A required enum: Required when empty, else Unsupported with the listed values. */
function validateChoice(value: string | undefined, allowed: readonly string[], field: string): StatusCause[] {
  if ((value ?? '') === '') return [fieldError.required(field)];
  return allowed.includes(value ?? '') ? [] : [fieldError.notSupported(field, value, allowed)];
}

/** An optional name checked only when non-empty. */
function nameProblems(value: string | undefined, field: string, check: (v: string) => string[]): StatusCause[] {
  if (value == null || value === '') return [];
  return check(value).map((p) => fieldError.invalid(field, value, p));
}

/** validatePodDNSConfig: `None` needs nameservers; ≤ 3 IP nameservers, ≤ 6 searches in ≤ 256 characters. */
function validateDnsConfig(config: PodDNSConfig | undefined, policy: string | undefined, field: string): StatusCause[] {
  if (policy === 'None') {
    if (config == null) return [fieldError.required(field, 'must provide `dnsConfig` when `dnsPolicy` is None')];
    if ((config.nameservers ?? []).length === 0) return [fieldError.required(`${field}.nameservers`, 'must provide at least one DNS nameserver when `dnsPolicy` is None')];
  }
  if (config == null) return [];
  const causes: StatusCause[] = [];
  const nameservers = config.nameservers ?? [];
  if (nameservers.length > 3) causes.push(invalidRendered(`${field}.nameservers`, goStringSlice(config.nameservers), 'must not have more than 3 nameservers'));
  nameservers.forEach((ns, i) => {
    if (!isIpAddress(ns)) causes.push(fieldError.invalid(`${field}.nameservers[${i}]`, ns, 'must be valid IP address'));
  });
  const searches = config.searches ?? [];
  if (searches.length > 6) causes.push(invalidRendered(`${field}.searches`, goStringSlice(config.searches), 'must not have more than 6 search paths'));
  if (searches.join(' ').length > 256) causes.push(invalidRendered(`${field}.searches`, goStringSlice(config.searches), 'must not have more than 256 characters (including spaces) in the search list'));
  searches.forEach((search, i) => causes.push(...dns1123SubdomainProblems(search).map((p) => fieldError.invalid(`${field}.searches[${i}]`, search, p))));
  (config.options ?? []).forEach((option, i) => {
    if ((option.name ?? '') === '') causes.push(fieldError.required(`${field}.options[${i}]`, 'must not be empty'));
  });
  return causes;
}
