import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { dns1123LabelProblems } from '../../apimachinery/validation/names.js';
import { validateEnv, validateEnvFrom } from './pod-spec-env.js';
import { validateLocalDescendingPath, validateNoBacksteps } from './pod-spec-paths.js';
import { validateHandler, validateProbe } from './pod-spec-probes.js';
import { validateResourceRequirements } from '../../api/pod-spec-resources.js';
import { portNameProblems, portNumberProblems, unixIdProblems } from './pod-spec-syntax.js';
import type { Container, ContainerPort, SecurityContext, Volume, VolumeDevice, VolumeMount } from '../../api/pod-spec-types.js';

/**
 * validateContainers and validateInitContainers (core validation, 1.17): names, image, probes,
 * lifecycle, ports, env, mounts, pull policy, resources, security context, host ports.
 */
export function validateContainers(containers: readonly Container[], volumes: ReadonlyMap<string, Volume>, field: string, isInit = false): StatusCause[] {
  if (containers.length === 0) return [fieldError.required(field)];
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  containers.forEach((container, i) => {
    const at = `${field}[${i}]`;
    const name = container.name ?? '';
    if (name === '') causes.push(fieldError.required(`${at}.name`));
    else causes.push(...dns1123LabelProblems(name).map((p) => fieldError.invalid(`${at}.name`, name, p)));
    if (names.has(name)) causes.push(fieldError.duplicate(`${at}.name`, name));
    else names.add(name);
    if ((container.image ?? '') === '') causes.push(fieldError.required(`${at}.image`));
    if (container.lifecycle?.postStart != null) causes.push(...validateHandler(container.lifecycle.postStart, `${at}.lifecycle.postStart`));
    if (container.lifecycle?.preStop != null) causes.push(...validateHandler(container.lifecycle.preStop, `${at}.lifecycle.preStop`));
    for (const kind of ['livenessProbe', 'startupProbe'] as const) {
      const probe = container[kind];
      causes.push(...validateProbe(probe, `${at}.${kind}`));
      if (probe != null && probe.successThreshold !== 1) causes.push(fieldError.invalid(`${at}.${kind}.successThreshold`, probe.successThreshold ?? 0, 'must be 1'));
    }
    causes.push(...validateTerminationMessagePolicy(container.terminationMessagePolicy, `${at}.terminationMessagePolicy`));
    causes.push(...validateProbe(container.readinessProbe, `${at}.readinessProbe`));
    causes.push(...validatePorts(container.ports ?? [], `${at}.ports`));
    causes.push(...validateEnv(container.env ?? [], `${at}.env`));
    causes.push(...validateEnvFrom(container.envFrom ?? [], `${at}.envFrom`));
    causes.push(...validateVolumeMounts(container, volumes, `${at}.volumeMounts`));
    causes.push(...validateVolumeDevices(container, volumes, `${at}.volumeDevices`));
    causes.push(...validatePullPolicy(container.imagePullPolicy, `${at}.imagePullPolicy`));
    causes.push(...validateResourceRequirements(container.resources, `${at}.resources`));
    causes.push(...validateSecurityContext(container.securityContext, `${at}.securityContext`));
  });
  // Init containers run one at a time, so only their own host ports may not collide.
  if (isInit) containers.forEach((container, i) => causes.push(...hostPortConflicts([container], field, i)));
  else causes.push(...hostPortConflicts(containers, field, 0));
  return causes;
}

/** Init containers: container rules, names unique across both lists, no lifecycle or probes. */
export function validateInitContainers(initContainers: readonly Container[], containers: readonly Container[], volumes: ReadonlyMap<string, Volume>, field: string): StatusCause[] {
  const causes = initContainers.length > 0 ? validateContainers(initContainers, volumes, field, true) : [];
  const names = new Set(containers.map((c) => c.name ?? ''));
  initContainers.forEach((container, i) => {
    const at = `${field}[${i}]`;
    const name = container.name ?? '';
    if (names.has(name)) causes.push(fieldError.duplicate(`${at}.name`, name));
    if (name !== '') names.add(name);
    for (const kind of ['lifecycle', 'livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
      if (container[kind] != null) causes.push(fieldError.invalid(`${at}.${kind}`, container[kind], 'must not be set for init containers'));
    }
  });
  return causes;
}

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

function validatePorts(ports: readonly ContainerPort[], field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = `${field}[${i}]`;
    const name = port.name ?? '';
    if (name !== '') {
      const problems = portNameProblems(name);
      if (problems.length > 0) causes.push(...problems.map((p) => fieldError.invalid(`${at}.name`, name, p)));
      else if (names.has(name)) causes.push(fieldError.duplicate(`${at}.name`, name));
      else names.add(name);
    }
    const containerPort = port.containerPort ?? 0;
    if (containerPort === 0) causes.push(fieldError.required(`${at}.containerPort`));
    else causes.push(...portNumberProblems(containerPort).map((p) => fieldError.invalid(`${at}.containerPort`, containerPort, p)));
    const hostPort = port.hostPort ?? 0;
    if (hostPort !== 0) causes.push(...portNumberProblems(hostPort).map((p) => fieldError.invalid(`${at}.hostPort`, hostPort, p)));
    const protocol = port.protocol ?? '';
    if (protocol === '') causes.push(fieldError.required(`${at}.protocol`));
    else if (!PROTOCOLS.includes(protocol)) causes.push(fieldError.notSupported(`${at}.protocol`, protocol, PROTOCOLS));
  });
  return causes;
}

/** AccumulateUniqueHostPorts: `protocol/hostIP/port` at most once; `first` is the first container's index. */
function hostPortConflicts(containers: readonly Container[], field: string, first: number): StatusCause[] {
  const causes: StatusCause[] = [];
  const seen = new Set<string>();
  containers.forEach((container, i) => {
    (container.ports ?? []).forEach((port, j) => {
      if ((port.hostPort ?? 0) === 0) return;
      const key = `${port.protocol ?? ''}/${port.hostIP ?? ''}/${port.hostPort}`;
      if (seen.has(key)) causes.push(fieldError.duplicate(`${field}[${first + i}].ports[${j}].hostPort`, key));
      seen.add(key);
    });
  });
  return causes;
}

function validateTerminationMessagePolicy(policy: string | undefined, field: string): StatusCause[] {
  if (policy === 'File' || policy === 'FallbackToLogsOnError') return [];
  if ((policy ?? '') === '') return [fieldError.required(field, "must be 'File' or 'FallbackToLogsOnError'")];
  return [fieldError.invalid(field, policy, "must be 'File' or 'FallbackToLogsOnError'")];
}

const PULL_POLICIES = ['Always', 'IfNotPresent', 'Never'];

function validatePullPolicy(policy: string | undefined, field: string): StatusCause[] {
  if ((policy ?? '') === '') return [fieldError.required(field)];
  return PULL_POLICIES.includes(policy ?? '') ? [] : [fieldError.notSupported(field, policy, PULL_POLICIES)];
}

const PROPAGATIONS = ['Bidirectional', 'HostToContainer', 'None'];

function validateVolumeMounts(container: Container, volumes: ReadonlyMap<string, Volume>, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const mountPaths = new Set<string>();
  const devices = new Map((container.volumeDevices ?? []).map((d: VolumeDevice) => [d.name ?? '', d.devicePath ?? '']));
  const devicePaths = new Set(devices.values());
  (container.volumeMounts ?? []).forEach((mount: VolumeMount, i) => {
    const at = `${field}[${i}]`;
    const name = mount.name ?? '';
    const path = mount.mountPath ?? '';
    if (name === '') causes.push(fieldError.required(`${at}.name`));
    if (!volumes.has(name)) causes.push(fieldError.notFound(`${at}.name`, name));
    if (path === '') causes.push(fieldError.required(`${at}.mountPath`));
    if (mountPaths.has(path)) causes.push(fieldError.invalid(`${at}.mountPath`, path, 'must be unique'));
    mountPaths.add(path);
    if (devices.has(name)) causes.push(fieldError.invalid(`${at}.name`, name, 'must not already exist in volumeDevices'));
    if (devicePaths.has(path)) causes.push(fieldError.invalid(`${at}.mountPath`, path, 'must not already exist as a path in volumeDevices'));
    // kube reports the sub-path rules at the list's path.
    if ((mount.subPath ?? '') !== '') causes.push(...validateLocalDescendingPath(mount.subPath ?? '', `${field}.subPath`));
    if ((mount.subPathExpr ?? '') !== '') {
      if ((mount.subPath ?? '') !== '') causes.push(fieldError.invalid(`${at}.subPathExpr`, mount.subPathExpr, 'subPathExpr and subPath are mutually exclusive'));
      causes.push(...validateLocalDescendingPath(mount.subPathExpr ?? '', `${field}.subPathExpr`));
    }
    if (mount.mountPropagation != null) {
      if (!PROPAGATIONS.includes(mount.mountPropagation)) causes.push(fieldError.notSupported(`${field}.mountPropagation`, mount.mountPropagation, PROPAGATIONS));
      if (mount.mountPropagation === 'Bidirectional' && container.securityContext?.privileged !== true) {
        causes.push(fieldError.forbidden(`${field}.mountPropagation`, 'Bidirectional mount propagation is available only to privileged containers'));
      }
    }
  });
  return causes;
}

function validateVolumeDevices(container: Container, volumes: ReadonlyMap<string, Volume>, field: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const mounts = new Map((container.volumeMounts ?? []).map((m) => [m.name ?? '', m.mountPath ?? '']));
  const mountPaths = new Set(mounts.values());
  const names = new Set<string>();
  const paths = new Set<string>();
  (container.volumeDevices ?? []).forEach((device, i) => {
    const at = `${field}[${i}]`;
    const name = device.name ?? '';
    const path = device.devicePath ?? '';
    const volume = volumes.get(name);
    if (name === '') causes.push(fieldError.required(`${at}.name`));
    if (names.has(name)) causes.push(fieldError.invalid(`${at}.name`, name, 'must be unique'));
    if (volume != null && volume.persistentVolumeClaim == null) causes.push(fieldError.invalid(`${at}.name`, name, 'can only use volume source type of PersistentVolumeClaim for block mode'));
    if (volume == null) causes.push(fieldError.notFound(`${at}.name`, name));
    if (path === '') causes.push(fieldError.required(`${at}.devicePath`));
    if (paths.has(path)) causes.push(fieldError.invalid(`${at}.devicePath`, path, 'must be unique'));
    if (path !== '' && validateNoBacksteps(path, at).length > 0) causes.push(fieldError.invalid(`${at}.devicePath`, path, "can not contain backsteps ('..')"));
    else paths.add(path);
    if (mounts.has(name)) causes.push(fieldError.invalid(`${at}.name`, name, 'must not already exist in volumeMounts'));
    if (mountPaths.has(path)) causes.push(fieldError.invalid(`${at}.devicePath`, path, 'must not already exist as a path in volumeMounts'));
    if (name !== '') names.add(name);
  });
  return causes;
}

/**
 * ValidateSecurityContext (container level). Privileged containers are refused as
 * kube-apiserver does by default (`--allow-privileged=false`).
 */
function validateSecurityContext(context: SecurityContext | undefined, field: string): StatusCause[] {
  if (context == null) return [];
  const causes: StatusCause[] = [];
  if (context.privileged === true) causes.push(fieldError.forbidden(`${field}.privileged`, 'disallowed by cluster policy'));
  for (const key of ['runAsUser', 'runAsGroup'] as const) {
    const id = context[key];
    if (id != null) causes.push(...unixIdProblems(id).map((p) => fieldError.invalid(`${field}.${key}`, id, p)));
  }
  if (context.allowPrivilegeEscalation === false) {
    if (context.privileged === true) causes.push(fieldError.invalid(field, context, 'cannot set `allowPrivilegeEscalation` to false and `privileged` to true'));
    if ((context.capabilities?.add ?? []).includes('CAP_SYS_ADMIN')) causes.push(fieldError.invalid(field, context, 'cannot set `allowPrivilegeEscalation` to false and `capabilities.Add` CAP_SYS_ADMIN'));
  }
  return causes;
}
