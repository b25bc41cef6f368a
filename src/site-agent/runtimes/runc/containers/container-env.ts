import type { KubeObject } from '../../../../apimachinery/object.js';
import { parseQuantity } from '../../../../api/pod-spec-resources.js';
import type { Container, EnvVar, PodSpec } from '../../../../api/pod-spec-types.js';

/** ConfigMaps and Secrets placed on the pod's site, by namespace and name. */
export interface PodObjectSource {
  configMap(namespace: string, name: string): KubeObject | undefined;
  secret(namespace: string, name: string): KubeObject | undefined;
}

/** The pod facts the downward API exposes. */
export interface DownwardFacts {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly nodeName: string;
  readonly serviceAccountName: string;
  readonly podIP: string;
  readonly hostIP: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

/** A container's environment cannot be made (kubelet's CreateContainerConfigError). */
export class ContainerConfigError extends Error {}

const decode = (value: string): string => Buffer.from(value, 'base64').toString('utf8');

function dataOf(object: KubeObject, secret: boolean): Record<string, string> {
  const data = (object['data'] ?? {}) as Record<string, string>;
  if (!secret) return { ...((object['binaryData'] ?? {}) as Record<string, string>), ...data };
  return Object.fromEntries(Object.entries(data).map(([k, v]) => [k, decode(v)]));
}

/** `metadata.name`, `status.podIP`, … as kubelet's podFieldSelectorRuntimeValue. */
export function downwardField(facts: DownwardFacts, path: string): string {
  switch (path) {
    case 'metadata.name':
      return facts.name;
    case 'metadata.namespace':
      return facts.namespace;
    case 'metadata.uid':
      return facts.uid;
    case 'spec.nodeName':
      return facts.nodeName;
    case 'spec.serviceAccountName':
      return facts.serviceAccountName;
    case 'status.podIP':
      return facts.podIP;
    case 'status.hostIP':
      return facts.hostIP;
  }
  const label = /^metadata\.labels\['(.+)'\]$/.exec(path);
  if (label !== null) return facts.labels[label[1] as string] ?? '';
  const annotation = /^metadata\.annotations\['(.+)'\]$/.exec(path);
  if (annotation !== null) return facts.annotations[annotation[1] as string] ?? '';
  throw new ContainerConfigError(`unsupported fieldPath: ${path}`);
}

/** `limits.cpu` etc. of a container, in units of `divisor` rounded up, as kubelet's ExtractContainerResourceValue. */
export function resourceFieldValue(container: Container, resource: string, divisor: string | number | undefined): string {
  const [list, name] = resource.split('.') as [string, string];
  const quantities = list === 'limits' ? container.resources?.limits : list === 'requests' ? container.resources?.requests : undefined;
  if (name === undefined || (list !== 'limits' && list !== 'requests')) throw new ContainerConfigError(`unsupported container resource: ${resource}`);
  const value = parseQuantity(quantities?.[name] ?? undefined);
  const by = parseQuantity(divisor ?? 1) ?? parseQuantity(1);
  if (value === undefined) return '0';
  if (name === 'cpu') {
    const milli = value.milliValue();
    const per = by?.milliValue() ?? 1000n;
    return String((milli + per - 1n) / per);
  }
  const bytes = value.value();
  const per = by?.value() ?? 1n;
  return String((bytes + per - 1n) / per);
}

/** Kubernetes' `$(VAR)` expansion against the variables defined so far; `$$` escapes, unknown references stay as written. */
export function expandReferences(text: string, defined: ReadonlyMap<string, string>): string {
  return text.replace(/\$\$|\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)/g, (match, name: string | undefined) => {
    if (match === '$$') return '$';
    return defined.get(name as string) ?? match;
  });
}

function keyRef(source: PodObjectSource, namespace: string, kind: 'configMap' | 'secret', ref: { name?: string; key?: string; optional?: boolean }): string | undefined {
  const object = source[kind](namespace, ref.name ?? '');
  const label = kind === 'configMap' ? 'configmap' : 'secret';
  if (object === undefined) {
    if (ref.optional === true) return undefined;
    throw new ContainerConfigError(`${label} "${ref.name ?? ''}" not found`);
  }
  const value = dataOf(object, kind === 'secret')[ref.key ?? ''];
  if (value === undefined && ref.optional !== true) throw new ContainerConfigError(`couldn't find key ${ref.key ?? ''} in ${kind === 'configMap' ? 'ConfigMap' : 'Secret'} ${namespace}/${ref.name ?? ''}`);
  return value;
}

/**
 * A container's environment as kubelet makes it: `envFrom` sources in order (prefixed; keys
 * that are not valid names skipped), then `env` in order with `$(VAR)` expanded against what
 * came before, values from the downward API, container resources, ConfigMaps and Secrets.
 * Missing objects or keys fail unless optional. Pure but for `source`.
 */
export function containerEnvironment(spec: PodSpec, container: Container, facts: DownwardFacts, source: PodObjectSource): Map<string, string> {
  const env = new Map<string, string>();
  for (const from of container.envFrom ?? []) {
    const kind = from.configMapRef !== undefined ? 'configMap' : 'secret';
    const ref = from.configMapRef ?? from.secretRef ?? {};
    const object = source[kind](facts.namespace, ref.name ?? '');
    if (object === undefined) {
      if (ref.optional === true) continue;
      throw new ContainerConfigError(`${kind === 'configMap' ? 'configmap' : 'secret'} "${ref.name ?? ''}" not found`);
    }
    for (const [key, value] of Object.entries(dataOf(object, kind === 'secret'))) {
      const name = `${from.prefix ?? ''}${key}`;
      if (/^[-._a-zA-Z][-._a-zA-Z0-9]*$/.test(name)) env.set(name, value);
    }
  }
  for (const variable of container.env ?? []) {
    const value = envValue(spec, container, variable, facts, source, env);
    if (value !== undefined) env.set(variable.name ?? '', value);
  }
  return env;
}

function envValue(spec: PodSpec, container: Container, variable: EnvVar, facts: DownwardFacts, source: PodObjectSource, defined: ReadonlyMap<string, string>): string | undefined {
  const from = variable.valueFrom;
  if (from === undefined) return expandReferences(variable.value ?? '', defined);
  if (from.fieldRef !== undefined) return downwardField(facts, from.fieldRef.fieldPath ?? '');
  if (from.resourceFieldRef !== undefined) {
    const target = from.resourceFieldRef.containerName;
    const owner = target === undefined || target === '' ? container : [...(spec.containers ?? []), ...(spec.initContainers ?? [])].find((c) => c.name === target);
    if (owner === undefined) throw new ContainerConfigError(`container ${target ?? ''} not found for resourceFieldRef`);
    return resourceFieldValue(owner, from.resourceFieldRef.resource ?? '', from.resourceFieldRef.divisor);
  }
  if (from.configMapKeyRef !== undefined) return keyRef(source, facts.namespace, 'configMap', from.configMapKeyRef);
  if (from.secretKeyRef !== undefined) return keyRef(source, facts.namespace, 'secret', from.secretKeyRef);
  return '';
}
