import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import { FIELD_IMMUTABLE, validateLabels } from '../../apimachinery/validation/object-meta.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { PORT_PROTOCOLS, portNumProblems, validateDns1123Label, validateDns1123Subdomain, validatePortNumOrName } from './core-fields.js';
import { isCidr, parseIp, validateIp, validateNonSpecialIp } from './core-ip.js';
import { ensure, view, type LoadBalancerStatus, type ServicePort, type ServiceSpec } from './core-types.js';

/**
 * Service defaulting and validation as kube-apiserver 1.17 (`SetDefaults_Service`,
 * `ValidateService`, `ValidateServiceUpdate`, `ValidateServiceStatusUpdate`). ObjectMeta is
 * validated by the generic store; these are the kind's own rules.
 */

export const SERVICE_TYPES: readonly string[] = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const AFFINITIES: readonly string[] = ['ClientIP', 'None'];
/** kube's DefaultClientIPServiceAffinitySeconds and MaxClientIPServiceAffinitySeconds. */
const DEFAULT_AFFINITY_SECONDS = 10800;
const MAX_AFFINITY_SECONDS = 86400;
const KUBELET_PORT = 10250;
const SOURCE_RANGES_ANNOTATION = 'service.beta.kubernetes.io/load-balancer-source-ranges';

/** The spec a Service has: `None` (headless) and `""` mean no address. */
export function serviceSpec(object: KubeObject): ServiceSpec {
  return view<ServiceSpec>(object, 'spec');
}

/** helper.IsServiceIPSet: a real address, neither empty nor "None". */
export function hasClusterIp(spec: ServiceSpec): boolean {
  const ip = spec.clusterIP ?? '';
  return ip !== '' && ip !== 'None';
}

/** SetDefaults_Service (and its session affinity config defaulting). */
export function defaultService(object: KubeObject): void {
  const spec = ensure<ServiceSpec>(object, 'spec');
  if ((spec.sessionAffinity ?? '') === '') spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if ((spec.type ?? '') === '') spec.type = 'ClusterIP';
  for (const port of spec.ports ?? []) {
    if ((port.protocol ?? '') === '') port.protocol = 'TCP';
    if (port.targetPort === undefined || port.targetPort === 0 || port.targetPort === '') port.targetPort = port.port ?? 0;
  }
  if ((spec.type === 'NodePort' || spec.type === 'LoadBalancer') && (spec.externalTrafficPolicy ?? '') === '') spec.externalTrafficPolicy = 'Cluster';
  if (spec.sessionAffinity === 'ClientIP') {
    const config = spec.sessionAffinityConfig;
    if (config?.clientIP?.timeoutSeconds === undefined) spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_AFFINITY_SECONDS } };
  }
}

/** ValidateService without the ObjectMeta part. */
export function validateService(object: KubeObject): StatusCause[] {
  const spec = serviceSpec(object);
  const ports = spec.ports ?? [];
  const type = spec.type ?? '';
  const clusterIP = spec.clusterIP ?? '';
  const headless = clusterIP === 'None';
  const causes: StatusCause[] = [];
  if (ports.length === 0 && !headless && type !== 'ExternalName') causes.push(fieldError.required('spec.ports'));
  causes.push(...typeRules(spec));
  const names = new Set<string>();
  ports.forEach((port, i) => causes.push(...validateServicePort(port, ports.length > 1, names, `spec.ports[${i}]`)));
  if (spec.selector != null) causes.push(...validateLabels(spec.selector, 'spec.selector'));
  causes.push(...affinityRules(spec));
  if (hasClusterIp(spec) && parseIp(clusterIP) === undefined) causes.push(fieldError.invalid('spec.clusterIP', clusterIP, "must be empty, 'None', or a valid IP address"));
  (spec.externalIPs ?? []).forEach((ip, i) => {
    const invalid = validateIp(ip, `spec.externalIPs[${i}]`);
    causes.push(...(invalid.length > 0 ? invalid : validateNonSpecialIp(ip, `spec.externalIPs[${i}]`)));
  });
  if (type === '') causes.push(fieldError.required('spec.type'));
  else if (!SERVICE_TYPES.includes(type)) causes.push(fieldError.notSupported('spec.type', type, SERVICE_TYPES));
  causes.push(...portCombinationRules(spec));
  causes.push(...sourceRangeRules(spec, object.metadata.annotations));
  causes.push(...externalTrafficRules(spec));
  return causes;
}

/** ValidateServiceUpdate without the ObjectMeta part: a set clusterIP is immutable. */
export function validateServiceUpdate(object: KubeObject, old: KubeObject): StatusCause[] {
  const spec = serviceSpec(object);
  const previous = serviceSpec(old);
  const causes: StatusCause[] = [];
  const oldIp = previous.clusterIP ?? '';
  const newIp = spec.clusterIP ?? '';
  if (spec.type !== 'ExternalName' && previous.type !== 'ExternalName' && oldIp !== '' && newIp !== oldIp) {
    causes.push(fieldError.invalid('spec.clusterIP', newIp, FIELD_IMMUTABLE));
  }
  return [...causes, ...validateService(object)];
}

/** ValidateServiceStatusUpdate without the ObjectMeta part: load balancer ingress addresses. */
export function validateServiceStatus(object: KubeObject): StatusCause[] {
  const status = view<{ loadBalancer?: LoadBalancerStatus }>(object, 'status');
  const causes: StatusCause[] = [];
  (status.loadBalancer?.ingress ?? []).forEach((ingress, i) => {
    const path = `status.loadBalancer.ingress[${i}]`;
    const ip = ingress.ip ?? '';
    if (ip !== '' && parseIp(ip) === undefined) causes.push(fieldError.invalid(`${path}.ip`, ip, 'must be a valid IP address'));
    const hostname = ingress.hostname ?? '';
    if (hostname !== '') {
      causes.push(...validateDns1123Subdomain(hostname, `${path}.hostname`));
      if (parseIp(hostname) !== undefined) causes.push(fieldError.invalid(`${path}.hostname`, hostname, 'must be a DNS name, not an IP address'));
    }
  });
  return causes;
}

function typeRules(spec: ServiceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const clusterIP = spec.clusterIP ?? '';
  switch (spec.type) {
    case 'LoadBalancer':
      (spec.ports ?? []).forEach((port, i) => {
        if (port.port === KUBELET_PORT) causes.push(fieldError.invalid(`spec.ports[${i}]`, port.port, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      });
      if (clusterIP === 'None') causes.push(fieldError.invalid('spec.clusterIP', clusterIP, "may not be set to 'None' for LoadBalancer services"));
      break;
    case 'NodePort':
      if (clusterIP === 'None') causes.push(fieldError.invalid('spec.clusterIP', clusterIP, "may not be set to 'None' for NodePort services"));
      break;
    case 'ExternalName': {
      if (clusterIP !== '') causes.push(fieldError.forbidden('spec.clusterIP', 'must be empty for ExternalName services'));
      const externalName = spec.externalName ?? '';
      if (externalName === '') causes.push(fieldError.required('spec.externalName'));
      else causes.push(...validateDns1123Subdomain(externalName, 'spec.externalName'));
      break;
    }
    default:
      break;
  }
  return causes;
}

function validateServicePort(port: ServicePort, requireName: boolean, names: Set<string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const name = port.name ?? '';
  if (requireName && name === '') causes.push(fieldError.required(`${path}.name`));
  else if (name !== '') {
    causes.push(...validateDns1123Label(name, `${path}.name`));
    if (names.has(name)) causes.push(fieldError.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  const number = port.port ?? 0;
  for (const p of portNumProblems(number)) causes.push(fieldError.invalid(`${path}.port`, number, p));
  const protocol = port.protocol ?? '';
  if (protocol === '') causes.push(fieldError.required(`${path}.protocol`));
  else if (!PORT_PROTOCOLS.includes(protocol)) causes.push(fieldError.notSupported(`${path}.protocol`, protocol, PORT_PROTOCOLS));
  causes.push(...validatePortNumOrName(port.targetPort, `${path}.targetPort`));
  return causes;
}

function affinityRules(spec: ServiceSpec): StatusCause[] {
  const affinity = spec.sessionAffinity ?? '';
  if (affinity === '') return [fieldError.required('spec.sessionAffinity')];
  if (!AFFINITIES.includes(affinity)) return [fieldError.notSupported('spec.sessionAffinity', affinity, AFFINITIES)];
  const path = 'spec.sessionAffinityConfig';
  if (affinity === 'None') return spec.sessionAffinityConfig != null ? [fieldError.forbidden(path, 'must not be set when session affinity is None')] : [];
  const why = 'when session affinity type is ClientIP';
  const config = spec.sessionAffinityConfig;
  if (config == null) return [fieldError.required(path, why)];
  if (config.clientIP == null) return [fieldError.required(`${path}.clientIP`, why)];
  const timeout = config.clientIP.timeoutSeconds;
  if (timeout === undefined) return [fieldError.required(`${path}.clientIP.timeoutSeconds`, why)];
  if (timeout <= 0 || timeout > MAX_AFFINITY_SECONDS) {
    return [fieldError.invalid(`${path}.clientIP.timeoutSeconds`, timeout, `must be greater than 0 and less than ${MAX_AFFINITY_SECONDS}`)];
  }
  return [];
}

/** Load balancer protocols, ClusterIP node ports, and duplicate (protocol, nodePort) and (protocol, port) pairs. */
function portCombinationRules(spec: ServiceSpec): StatusCause[] {
  const ports = spec.ports ?? [];
  const causes: StatusCause[] = [];
  if (spec.type === 'LoadBalancer') {
    const protocols = new Set<string>();
    ports.forEach((port, i) => {
      const protocol = port.protocol ?? '';
      if (!PORT_PROTOCOLS.includes(protocol)) causes.push(fieldError.invalid(`spec.ports[${i}].protocol`, protocol, 'cannot create an external load balancer with non-TCP/UDP/SCTP ports'));
      else protocols.add(protocol);
    });
    if (protocols.size > 1) causes.push(fieldError.invalid('spec.ports', ports, 'cannot create an external load balancer with mix protocols'));
  }
  if (spec.type === 'ClusterIP') {
    ports.forEach((port, i) => {
      if ((port.nodePort ?? 0) !== 0) causes.push(fieldError.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    });
  }
  const nodePorts = new Set<string>();
  ports.forEach((port, i) => {
    const nodePort = port.nodePort ?? 0;
    if (nodePort === 0) return;
    const key = `${port.protocol ?? ''}/${nodePort}`;
    if (nodePorts.has(key)) causes.push(fieldError.duplicate(`spec.ports[${i}].nodePort`, nodePort));
    nodePorts.add(key);
  });
  const seen = new Set<string>();
  ports.forEach((port, i) => {
    const protocol = port.protocol ?? '';
    const key = `${protocol}/${port.port ?? 0}`;
    if (seen.has(key)) causes.push(duplicatePort(`spec.ports[${i}]`, protocol, port.port ?? 0));
    seen.add(key);
  });
  return causes;
}

/** kube reports a duplicate port with Go's `%#v` of the (protocol, port) key, a core.ServicePort. */
function duplicatePort(path: string, protocol: string, port: number): StatusCause {
  const value = `core.ServicePort{Name:"", Protocol:${JSON.stringify(protocol)}, Port:${port}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;
  return { reason: 'FieldValueDuplicate', field: path, message: `Duplicate value: ${value}` };
}

function sourceRangeRules(spec: ServiceSpec, annotations: Record<string, string> | undefined): StatusCause[] {
  const ranges = spec.loadBalancerSourceRanges ?? [];
  const annotation = annotations?.[SOURCE_RANGES_ANNOTATION];
  if (ranges.length === 0 && annotation === undefined) return [];
  const fromSpec = ranges.length > 0;
  const path = fromSpec ? 'spec.LoadBalancerSourceRanges' : `metadata.annotations[${SOURCE_RANGES_ANNOTATION}]`;
  const value = fromSpec ? `[${ranges.join(' ')}]` : (annotation ?? '');
  const causes: StatusCause[] = [];
  if (spec.type !== 'LoadBalancer') causes.push(fieldError.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  const list = fromSpec ? ranges : (annotation ?? '').split(',');
  const trimmed = list.map((r) => r.trim());
  const valid = fromSpec ? trimmed.every(isCidr) : annotation?.trim() === '' || trimmed.every(isCidr);
  if (!valid) causes.push(fieldError.invalid(path, value, 'must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 '));
  return causes;
}

function externalTrafficRules(spec: ServiceSpec): StatusCause[] {
  const causes: StatusCause[] = [];
  const policy = spec.externalTrafficPolicy ?? '';
  const healthCheckNodePort = spec.healthCheckNodePort ?? 0;
  if (policy !== '' && policy !== 'Cluster' && policy !== 'Local') {
    causes.push(fieldError.invalid('spec.externalTrafficPolicy', policy, 'ExternalTrafficPolicy must be empty, Cluster or Local'));
  }
  if (healthCheckNodePort < 0) causes.push(fieldError.invalid('spec.healthCheckNodePort', healthCheckNodePort, 'HealthCheckNodePort must be not less than 0'));
  if (spec.type !== 'LoadBalancer' && spec.type !== 'NodePort' && policy !== '') {
    causes.push(fieldError.invalid('spec.externalTrafficPolicy', policy, 'ExternalTrafficPolicy can only be set on NodePort and LoadBalancer service'));
  }
  const needsHealthCheck = spec.type === 'LoadBalancer' && policy === 'Local';
  if (!needsHealthCheck && healthCheckNodePort !== 0) {
    causes.push(fieldError.invalid('spec.healthCheckNodePort', healthCheckNodePort, 'HealthCheckNodePort can only be set on LoadBalancer service with ExternalTrafficPolicy=Local'));
  }
  return causes;
}
