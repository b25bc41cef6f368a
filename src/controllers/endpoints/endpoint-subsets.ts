import type { EndpointAddress, EndpointPort, EndpointSubset, ServicePort, ServiceSpec } from '../../vk8s/kinds/core-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { isPodReady, isTerminating, podPhase, podSpecOf, podStatusOf } from '../runtime/pod-state.js';

const TOLERATE_UNREADY_ANNOTATION = 'service.alpha.kubernetes.io/tolerate-unready-endpoints';

/** A Service's selector as a label map; undefined when it has none (its Endpoints are the user's). */
export function serviceSelector(service: KubeObject): Readonly<Record<string, string>> | undefined {
  const selector = ((service.spec ?? {}) as ServiceSpec).selector;
  return selector == null ? undefined : selector;
}

/** Whether `labels` has every key=value of `selector` (an empty selector selects every pod, as kube). */
export function selects(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> | undefined): boolean {
  return Object.entries(selector).every(([key, value]) => labels?.[key] === value);
}

/**
 * kube's podutil.FindPort: a numeric targetPort as is; a named one is the container port of
 * that name and the service port's protocol, looked up in each pod (so pods may differ).
 */
export function findPort(pod: KubeObject, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === 'number') return target;
  if (target === undefined) return undefined;
  const protocol = servicePort.protocol ?? 'TCP';
  for (const container of podSpecOf(pod).containers ?? []) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? 'TCP') === protocol && port.containerPort !== undefined) return port.containerPort;
    }
  }
  return undefined;
}

/** kube's shouldPodBeInEndpoints: a pod that will not run again is not even a not-ready address. */
function mayRunAgain(pod: KubeObject): boolean {
  const phase = podPhase(pod);
  switch (podSpecOf(pod).restartPolicy) {
    case 'Never':
      return phase !== 'Failed' && phase !== 'Succeeded';
    case 'OnFailure':
      return phase !== 'Succeeded';
    default:
      return true;
  }
}

function addressOf(service: KubeObject, pod: KubeObject, ip: string): EndpointAddress {
  const spec = podSpecOf(pod);
  const address: EndpointAddress = { ip };
  if ((spec.hostname ?? '') !== '' && spec.subdomain === service.metadata.name) address.hostname = spec.hostname;
  if ((spec.nodeName ?? '') !== '') address.nodeName = spec.nodeName;
  address.targetRef = { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '', resourceVersion: pod.metadata.resourceVersion ?? '' };
  return address;
}

interface Entry {
  readonly address: EndpointAddress;
  readonly ready: boolean;
}

const entryKey = (e: Entry): string => `${e.address.ip ?? ''}\u0000${e.address.targetRef?.uid ?? ''}\u0000${e.ready ? 'r' : 'n'}`;
const portKey = (p: EndpointPort): string => `${p.name ?? ''}\u0000${p.port ?? 0}\u0000${p.protocol ?? ''}`;
const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const compareAddresses = (a: EndpointAddress, b: EndpointAddress): number => compareText(a.ip ?? '', b.ip ?? '') || compareText(a.targetRef?.uid ?? '', b.targetRef?.uid ?? '');

/**
 * The Endpoints subsets of `service` over `pods` (the pods of every site its selector
 * matches), as kube's endpoints controller computes them: pods without an IP are skipped,
 * and so are terminating ones unless the Service publishes not-ready addresses; ready pods
 * are `addresses`, others `notReadyAddresses` (unless they will never run again); each
 * service port resolves its targetPort per pod; then, as kube's RepackSubsets, addresses
 * that serve the same ports share a subset. An address is its IP and its pod's uid: pod IPs
 * may repeat across sites (separate networks), and two pods with the same IP on two sites
 * stay two addresses, each with its own nodeName (`<site>-<node>`) and targetRef. kube's
 * Endpoints validation has no rule against repeated IPs. Everything is sorted, so equal
 * inputs give equal subsets.
 */
export function endpointSubsets(service: KubeObject, pods: readonly KubeObject[]): EndpointSubset[] {
  const spec = (service.spec ?? {}) as ServiceSpec;
  const tolerateUnready = spec.publishNotReadyAddresses === true || service.metadata.annotations?.[TOLERATE_UNREADY_ANNOTATION] === 'true';
  const servicePorts = spec.ports ?? [];
  const byPort = new Map<string, { port: EndpointPort | undefined; entries: Map<string, Entry> }>();
  const add = (port: EndpointPort | undefined, entry: Entry): void => {
    const key = port === undefined ? '' : portKey(port);
    let group = byPort.get(key);
    if (group === undefined) byPort.set(key, (group = { port, entries: new Map() }));
    group.entries.set(entryKey(entry), entry);
  };
  for (const pod of pods) {
    const ip = podStatusOf(pod).podIP ?? '';
    if (ip === '' || (!tolerateUnready && isTerminating(pod))) continue;
    const ready = tolerateUnready || isPodReady(pod);
    if (!ready && !mayRunAgain(pod)) continue;
    const entry: Entry = { address: addressOf(service, pod, ip), ready };
    if (servicePorts.length === 0) {
      if (spec.clusterIP === 'None') add(undefined, entry);
      continue;
    }
    for (const servicePort of servicePorts) {
      const number = findPort(pod, servicePort);
      if (number === undefined) continue;
      add({ ...((servicePort.name ?? '') === '' ? {} : { name: servicePort.name }), port: number, protocol: servicePort.protocol ?? 'TCP' }, entry);
    }
  }
  const byAddresses = new Map<string, { entries: Entry[]; ports: EndpointPort[] }>();
  for (const group of byPort.values()) {
    const entries = [...group.entries.values()].sort((a, b) => compareText(entryKey(a), entryKey(b)));
    const key = entries.map(entryKey).join('\u0001');
    let subset = byAddresses.get(key);
    if (subset === undefined) byAddresses.set(key, (subset = { entries, ports: [] }));
    if (group.port !== undefined) subset.ports.push(group.port);
  }
  const subsets = [...byAddresses.values()].map(({ entries, ports }) => {
    const subset: EndpointSubset = {};
    const ready = entries.filter((e) => e.ready).map((e) => e.address).sort(compareAddresses);
    const notReady = entries.filter((e) => !e.ready).map((e) => e.address).sort(compareAddresses);
    if (ready.length > 0) subset.addresses = ready;
    if (notReady.length > 0) subset.notReadyAddresses = notReady;
    if (ports.length > 0) subset.ports = ports.sort((a, b) => compareText(portKey(a), portKey(b)));
    return subset;
  });
  return subsets.sort((a, b) => compareText(JSON.stringify([a.ports ?? [], a.addresses?.[0] ?? a.notReadyAddresses?.[0] ?? {}]), JSON.stringify([b.ports ?? [], b.addresses?.[0] ?? b.notReadyAddresses?.[0] ?? {}])));
}
