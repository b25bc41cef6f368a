import type { Container, Handler, Probe } from '../pod-spec-types.js';
import { containerSeccompType, nameOf, podSeccompType, visitedContainers, type CheckResult, type PodSecurityView } from './pss-pod.js';
import { containersWord, joinQuote, pluralize, sortedUnique } from './pss-text.js';

/** One check of the Pod Security Standards: its id (the order of messages), level and the first version it applies at. */
export interface PodSecurityCheck {
  readonly id: string;
  readonly level: 'baseline' | 'restricted';
  /** The minor version (1.N) from which it applies. */
  readonly since: number;
  /** Baseline checks it replaces at the restricted level, and from which version. */
  readonly overrides?: { readonly id: string; readonly since: number };
  check(pod: PodSecurityView, minor: number): CheckResult | undefined;
}

const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const SAFE_SYSCTLS: ReadonlyArray<readonly [number, readonly string[]]> = [
  [0, ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']],
  [27, ['net.ipv4.ip_local_reserved_ports']],
  [29, ['net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']],
  [32, ['net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem']],
];
const APPARMOR_PREFIX = 'container.apparmor.security.beta.kubernetes.io/';

/** The sysctls baseline allows at a version (namespaced ones that cannot affect other pods). */
export function safeSysctls(minor: number): Set<string> {
  return new Set(SAFE_SYSCTLS.filter(([since]) => since <= minor).flatMap(([, names]) => names));
}

/** `pod`, `container "a"`/`containers "a", "b"`, … joined by ` and ` (the setters of a value). */
function setters(pod: boolean, containers: readonly string[], extra: readonly string[] = []): string {
  return [...(pod ? ['pod'] : []), ...(containers.length > 0 ? [containersWord(containers)] : []), ...extra].join(' and ');
}

function containersWhere(pod: PodSecurityView, test: (container: Container) => boolean): string[] {
  return visitedContainers(pod.spec).filter(test).map(nameOf);
}

const appArmorProfile: PodSecurityCheck = {
  id: 'appArmorProfile',
  level: 'baseline',
  since: 0,
  check(pod) {
    const allowedType = (type: unknown): boolean => type === undefined || type === 'RuntimeDefault' || type === 'Localhost';
    const typeOf = (context: unknown): unknown => (context as { appArmorProfile?: { type?: unknown } } | undefined)?.appArmorProfile?.type;
    const badTypes: string[] = [];
    const podBad = !allowedType(typeOf(pod.spec.securityContext));
    if (podBad) badTypes.push(String(typeOf(pod.spec.securityContext)));
    const badContainers = containersWhere(pod, (c) => !allowedType(typeOf(c.securityContext)));
    for (const c of visitedContainers(pod.spec)) if (!allowedType(typeOf(c.securityContext))) badTypes.push(String(typeOf(c.securityContext)));
    const badAnnotations = Object.entries(pod.annotations)
      .filter(([key, value]) => key.startsWith(APPARMOR_PREFIX) && !(value === '' || value === 'runtime/default' || value.startsWith('localhost/')))
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`);
    const values = [...sortedUnique(badTypes), ...sortedUnique(badAnnotations)];
    if (values.length === 0) return undefined;
    const annotations = badAnnotations.length === 0 ? [] : [pluralize('annotation', 'annotations', badAnnotations.length)];
    return { reason: pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', values.length), detail: `${setters(podBad, badContainers, annotations)} must not set AppArmor profile type to ${joinQuote(values)}` };
  },
};

const capabilitiesBaseline: PodSecurityCheck = {
  id: 'capabilities_baseline',
  level: 'baseline',
  since: 0,
  check(pod) {
    const names: string[] = [];
    const caps: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const extra = (c.securityContext?.capabilities?.add ?? []).filter((cap) => !BASELINE_CAPABILITIES.has(cap));
      if (extra.length === 0) continue;
      names.push(nameOf(c));
      caps.push(...extra);
    }
    if (names.length === 0) return undefined;
    return { reason: 'non-default capabilities', detail: `${containersWord(names)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add` };
  },
};

const hostNamespaces: PodSecurityCheck = {
  id: 'hostNamespaces',
  level: 'baseline',
  since: 0,
  check(pod) {
    const set = [['hostNetwork', pod.spec.hostNetwork], ['hostPID', pod.spec.hostPID], ['hostIPC', pod.spec['hostIPC']]].filter(([, value]) => value === true).map(([name]) => `${String(name)}=true`);
    return set.length === 0 ? undefined : { reason: 'host namespaces', detail: set.join(', ') };
  },
};

const hostPathVolumes: PodSecurityCheck = {
  id: 'hostPathVolumes',
  level: 'baseline',
  since: 0,
  check(pod) {
    const names = (pod.spec.volumes ?? []).filter((v) => v.hostPath != null).map((v) => v.name ?? '');
    return names.length === 0 ? undefined : { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', names.length)} ${joinQuote(names)}` };
  },
};

const hostPorts: PodSecurityCheck = {
  id: 'hostPorts',
  level: 'baseline',
  since: 0,
  check(pod) {
    const names: string[] = [];
    const ports: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const used = (c.ports ?? []).map((p) => p.hostPort ?? 0).filter((p) => p !== 0);
      if (used.length === 0) continue;
      names.push(nameOf(c));
      ports.push(...used.map(String));
    }
    if (names.length === 0) return undefined;
    const unique = sortedUnique(ports);
    return { reason: 'hostPort', detail: `${containersWord(names)} ${pluralize('uses', 'use', names.length)} ${pluralize('hostPort', 'hostPorts', unique.length)} ${unique.join(', ')}` };
  },
};

function handlerHosts(handler: Handler | Probe | undefined): string[] {
  return [handler?.httpGet?.host, handler?.tcpSocket?.host].filter((host): host is string => host !== undefined && host !== '');
}

const hostProbesAndHostLifecycle: PodSecurityCheck = {
  id: 'hostProbesAndHostLifecycle',
  level: 'baseline',
  since: 34,
  check(pod) {
    const names: string[] = [];
    const hosts: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const found = [c.livenessProbe, c.readinessProbe, c.startupProbe, c.lifecycle?.postStart, c.lifecycle?.preStop].flatMap(handlerHosts);
      if (found.length === 0) continue;
      names.push(nameOf(c));
      hosts.push(...found);
    }
    if (names.length === 0) return undefined;
    const uniqueNames = sortedUnique(names);
    const uniqueHosts = sortedUnique(hosts);
    const detail = `${containersWord(uniqueNames)} ${pluralize('uses', 'use', uniqueNames.length)} ${pluralize('probe or lifecycle host', 'probe or lifecycle hosts', uniqueHosts.length)} ${joinQuote(uniqueHosts)}`;
    return { reason: 'probe or lifecycle host', detail };
  },
};

const privileged: PodSecurityCheck = {
  id: 'privileged',
  level: 'baseline',
  since: 0,
  check(pod) {
    const names = containersWhere(pod, (c) => c.securityContext?.privileged === true);
    return names.length === 0 ? undefined : { reason: 'privileged', detail: `${containersWord(names)} must not set securityContext.privileged=true` };
  },
};

/** procMount (baseline; and, from 1.35, its restricted twin): only the Default /proc masking. */
function procMountCheck(id: string, level: 'baseline' | 'restricted', since: number): PodSecurityCheck {
  return {
    id,
    level,
    since,
    check(pod) {
      const bad = visitedContainers(pod.spec).filter((c) => c.securityContext?.procMount !== undefined && c.securityContext.procMount !== 'Default');
      if (bad.length === 0) return undefined;
      const values = sortedUnique(bad.map((c) => String(c.securityContext?.procMount)));
      return { reason: 'procMount', detail: `${containersWord(bad.map(nameOf))} must not set securityContext.procMount to ${joinQuote(values)}` };
    },
  };
}

const seLinuxOptions: PodSecurityCheck = {
  id: 'seLinuxOptions',
  level: 'baseline',
  since: 0,
  check(pod, minor) {
    const allowed = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t', ...(minor >= 31 ? ['container_engine_t'] : [])]);
    const types: string[] = [];
    let user = false;
    let role = false;
    const bad = (context: unknown): boolean => {
      const options = (context as { seLinuxOptions?: { type?: string; user?: string; role?: string } } | undefined)?.seLinuxOptions;
      if (options == null) return false;
      const badType = !allowed.has(options.type ?? '');
      const badUser = (options.user ?? '') !== '';
      const badRole = (options.role ?? '') !== '';
      if (badType) types.push(options.type ?? '');
      user ||= badUser;
      role ||= badRole;
      return badType || badUser || badRole;
    };
    const podBad = bad(pod.spec.securityContext);
    const names = containersWhere(pod, (c) => bad(c.securityContext));
    if (!podBad && names.length === 0) return undefined;
    const unique = sortedUnique(types);
    const parts = [...(unique.length === 0 ? [] : [`${pluralize('type', 'types', unique.length)} ${joinQuote(unique)}`]), ...(user ? ['user may not be set'] : []), ...(role ? ['role may not be set'] : [])];
    return { reason: 'seLinuxOptions', detail: `${setters(podBad, names)} set forbidden securityContext.seLinuxOptions: ${parts.join('; ')}` };
  },
};

const seccompProfileBaseline: PodSecurityCheck = {
  id: 'seccompProfile_baseline',
  level: 'baseline',
  since: 0,
  check(pod) {
    const allowed = (type: string | undefined): boolean => type === undefined || type === 'RuntimeDefault' || type === 'Localhost';
    const podType = podSeccompType(pod);
    const values: string[] = [];
    if (!allowed(podType)) values.push(String(podType));
    const names: string[] = [];
    for (const c of visitedContainers(pod.spec)) {
      const type = containerSeccompType(pod, c);
      if (allowed(type)) continue;
      names.push(nameOf(c));
      values.push(String(type));
    }
    if (values.length === 0) return undefined;
    return { reason: 'seccompProfile', detail: `${setters(!allowed(podType), names)} must not set securityContext.seccompProfile.type to ${joinQuote(sortedUnique(values))}` };
  },
};

const sysctls: PodSecurityCheck = {
  id: 'sysctls',
  level: 'baseline',
  since: 0,
  check(pod, minor) {
    const safe = safeSysctls(minor);
    const forbidden = (pod.spec.securityContext?.sysctls ?? []).map((s) => s.name ?? '').filter((name) => !safe.has(name));
    return forbidden.length === 0 ? undefined : { reason: 'forbidden sysctls', detail: forbidden.join(', ') };
  },
};

const windowsHostProcess: PodSecurityCheck = {
  id: 'windowsHostProcess',
  level: 'baseline',
  since: 0,
  check(pod) {
    const hostProcess = (context: unknown): boolean =>
      (context as { windowsOptions?: { hostProcess?: unknown } } | undefined)?.windowsOptions?.hostProcess === true;
    const podBad = hostProcess(pod.spec.securityContext);
    const names = containersWhere(pod, (c) => hostProcess(c.securityContext));
    if (!podBad && names.length === 0) return undefined;
    return { reason: 'hostProcess', detail: `${setters(podBad, names)} must not set securityContext.windowsOptions.hostProcess=true` };
  },
};

/** The baseline checks, in kube's order (their ids sorted). */
export const BASELINE_CHECKS: readonly PodSecurityCheck[] = [
  appArmorProfile,
  capabilitiesBaseline,
  hostNamespaces,
  hostPathVolumes,
  hostPorts,
  hostProbesAndHostLifecycle,
  privileged,
  procMountCheck('procMount', 'baseline', 0),
  seLinuxOptions,
  seccompProfileBaseline,
  sysctls,
  windowsHostProcess,
];

export { procMountCheck, setters };
