import type { ClusterId, ProxyEndpoints, ProxyService, ProxyServicePort } from './proxy-model.js';

/**
 * The site decides its own data plane: the endpoints of the site's own pods come from what the
 * site's runtime sees of them (its probes, its containers), not from the control plane's
 * Endpoints, which may be stale or wrong while the site's link or the control plane is down (a
 * lease expiry marks every pod `Ready=False` although they serve). Pure.
 *
 * - A Service with a selector gets, on this site, the site's pods of its cluster and namespace
 *   the selector matches, as kube's endpoints controller picks them (`endpoint-subsets.ts` of
 *   the controllers, which an agent may not import): terminating pods left out unless the
 *   Service publishes not-ready addresses; ready by the site's probes (or always, when it
 *   publishes them), else not ready unless the pod will never run again; each Service port's
 *   targetPort resolved per pod (a name through the pod's container ports and the protocol).
 * - The control plane's Endpoints add what the site cannot know itself: addresses that are no
 *   pod of the site (hand-made Endpoints, Services without a selector, a pod the runtime has not
 *   adopted yet). They never decide about an address that is a pod of the site: for a selector
 *   Service the site's view replaces them; for one without, a pod the site sees not ready or
 *   terminating is not ready whatever they say.
 */

/** A pod of the site as its runtime sees it now. */
export interface LocalPod {
  readonly cluster: ClusterId;
  readonly namespace: string;
  readonly ip: string;
  readonly labels: Readonly<Record<string, string>>;
  /** Ready as the site's own probes say (kubelet's Ready condition). */
  readonly ready: boolean;
  /** Being deleted (stopping). */
  readonly terminating: boolean;
  readonly phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  readonly restartPolicy: string;
  /** Its containers' ports. */
  readonly ports: ReadonlyArray<{ readonly name: string; readonly port: number; readonly protocol: string }>;
}

/** kube's podutil.FindPort: a numeric targetPort as is (none: the port), a name through the pod's container ports of the same protocol. */
function findPort(pod: LocalPod, port: ProxyServicePort): number | undefined {
  const target = port.targetPort ?? port.port;
  if (typeof target === 'number') return target;
  return pod.ports.find((p) => p.name === target && p.protocol === port.protocol)?.port;
}

/** kube's shouldPodBeInEndpoints: a pod that will not run again is not even a not-ready address. */
function mayRunAgain(pod: LocalPod): boolean {
  if (pod.restartPolicy === 'Never') return pod.phase !== 'Failed' && pod.phase !== 'Succeeded';
  if (pod.restartPolicy === 'OnFailure') return pod.phase !== 'Succeeded';
  return true;
}

type Labels = Readonly<Record<string, string>>;
const selects = (selector: Labels, labels: Labels): boolean => Object.entries(selector).every(([key, value]) => labels[key] === value);

/** The subsets of `service` over the site's own pods (one per pod: the plan and the names only read addresses and ports). */
function localSubsets(service: ProxyService, selector: Readonly<Record<string, string>>, pods: readonly LocalPod[]): ProxyEndpoints['subsets'] {
  const tolerate = service.publishNotReadyAddresses === true;
  const subsets: Array<ProxyEndpoints['subsets'][number]> = [];
  for (const pod of pods) {
    if (pod.cluster !== service.cluster || pod.namespace !== service.namespace || pod.ip === '' || !selects(selector, pod.labels)) continue;
    if (pod.terminating && !tolerate) continue;
    const ready = tolerate || pod.ready;
    if (!ready && !mayRunAgain(pod)) continue;
    const ports: ProxyServicePort[] = [];
    for (const port of service.ports) {
      const number = findPort(pod, port);
      if (number !== undefined) ports.push({ name: port.name, protocol: port.protocol, port: number });
    }
    // A pod none of whose ports resolve serves nothing; a headless Service without ports still names it.
    if (ports.length === 0 && service.ports.length > 0) continue;
    subsets.push({ ready: ready ? [pod.ip] : [], notReady: ready ? [] : [pod.ip], ports });
  }
  return subsets;
}

const keyOf = (e: { cluster: ClusterId; namespace: string; name: string }): string => `${e.cluster}\0${e.namespace}\0${e.name}`;

/**
 * The Endpoints the site's proxy and name servers use: `controlPlane` (already only the
 * addresses on this site) with the site's own pods decided by the site (see above). Endpoints
 * of no known Service pass as they are. With `complete` (the runtime has told every pod it runs:
 * none is left to adopt), a selector Service's addresses of the site that are no pod of it are
 * gone pods and dropped — after a machine restart the persisted Endpoints name the old addresses.
 */
export function siteEndpoints(
  services: readonly ProxyService[],
  controlPlane: readonly ProxyEndpoints[],
  pods: readonly LocalPod[],
  complete = false,
): ProxyEndpoints[] {
  const localIps = new Map<ClusterId, Set<string>>();
  const notServing = new Map<ClusterId, Set<string>>();
  for (const pod of pods) {
    if (!localIps.has(pod.cluster)) localIps.set(pod.cluster, new Set());
    localIps.get(pod.cluster)?.add(pod.ip);
    if (!pod.ready || pod.terminating) {
      if (!notServing.has(pod.cluster)) notServing.set(pod.cluster, new Set());
      notServing.get(pod.cluster)?.add(pod.ip);
    }
  }
  const given = new Map(controlPlane.map((e) => [keyOf(e), e]));
  const result = new Map<string, ProxyEndpoints>(given);
  for (const service of services) {
    const key = keyOf(service);
    const known = given.get(key)?.subsets ?? [];
    const local = localIps.get(service.cluster) ?? new Set<string>();
    const selector = service.selector;
    if (selector !== undefined && Object.keys(selector).length > 0) {
      // `complete`: the runtime has told every pod of the site, so an address of the site that is none of them is a pod gone (the
      // persisted Endpoints after a machine restart name the pods' old addresses): only the site's own pods serve then.
      const notLocal = (ips: readonly string[]): string[] => ips.filter((ip) => !local.has(ip));
      const remote = complete ? [] : known.map((s) => ({ ready: notLocal(s.ready), notReady: notLocal(s.notReady), ports: s.ports }));
      const subsets = [...remote.filter((s) => s.ready.length + s.notReady.length > 0), ...localSubsets(service, selector, pods)];
      result.set(key, { cluster: service.cluster, namespace: service.namespace, name: service.name, subsets });
      continue;
    }
    const down = notServing.get(service.cluster);
    if (down === undefined || given.get(key) === undefined) continue;
    const subsets = known.map((s) => ({
      ready: s.ready.filter((ip) => !down.has(ip)),
      notReady: [...s.notReady, ...s.ready.filter((ip) => down.has(ip))],
      ports: s.ports,
    }));
    result.set(key, { cluster: service.cluster, namespace: service.namespace, name: service.name, subsets });
  }
  return [...result.values()];
}
