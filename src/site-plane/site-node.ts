import { createHash } from 'node:crypto';
import type { KubeObject } from '../apimachinery/object.js';
import type { NodeRequest, SiteRequest } from './registration-request.js';
import { SITE_NAME_LABEL, SITE_TYPE_LABEL, SITE_TYPE_LABEL_VALUE, type SiteType } from '../site-api/site-model.js';

export const KUBELET_VERSION = 'v1.17.0-edgeplane';
export const DEFAULT_CONTAINER_RUNTIME = 'simulated://1.0.0';
const MAX_PODS_PER_NODE = '110';

/**
 * Pure: what a site's Nodes report as `containerRuntimeVersion`: `runc://<version>` for a runc
 * site (`unknown` when its agent gave none); undefined for a simulated site (the default).
 */
export function containerRuntimeVersionOf(site: Pick<SiteRequest, 'runtime' | 'runtimeVersion'>): string | undefined {
  return site.runtime === 'runc' ? `runc://${site.runtimeVersion ?? 'unknown'}` : undefined;
}

/** What a Node's identity depends on besides its request. */
export interface SiteNodeContext {
  readonly site: string;
  readonly type: SiteType;
  readonly uid: string;
  /** RFC 3339 (seconds): creation and condition times. */
  readonly now: string;
  readonly architecture?: string;
  readonly containerRuntimeVersion?: string;
}

export interface NodeCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

/** A Node's name: `<site>-<node>` (site names are unique, so Node names are too). */
export const nodeNameOf = (site: string, node: string): string => `${site}-${node}`;

const hex = (text: string): string => createHash('sha256').update(text).digest('hex');
const uuidOf = (h: string): string => `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;

/** A stable private address per Node name in 10.0.0.0/8 (sites are separate networks). */
export function internalAddressOf(nodeName: string): string {
  const h = createHash('sha256').update(nodeName).digest();
  return `10.${h[0] ?? 0}.${h[1] ?? 0}.${((h[2] ?? 0) % 254) + 1}`;
}

/** The four conditions kubelet 1.17 posts for a healthy node (its reasons and messages). */
export function healthyConditions(now: string): NodeCondition[] {
  const condition = (type: string, status: 'True' | 'False', reason: string, message: string): NodeCondition => ({ type, status, lastHeartbeatTime: now, lastTransitionTime: now, reason, message });
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
    condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
  ];
}

/**
 * Pure: the core/v1 Node a site's node is shown as, as a 1.17 kubelet registers it: name
 * `<site>-<node>`; labels kubernetes.io/hostname, os, arch (and their beta twins), the site's
 * name and type; capacity = allocatable (cpu, memory, pods 110); healthy conditions;
 * addresses InternalIP and Hostname; nodeInfo with kubelet `v1.17.0-edgeplane`.
 */
export function siteNodeObject(node: NodeRequest, context: SiteNodeContext): KubeObject {
  const name = nodeNameOf(context.site, node.name);
  const arch = context.architecture ?? 'amd64';
  const h = hex(name);
  const resources = { cpu: node.cpu, memory: node.memory, pods: MAX_PODS_PER_NODE };
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      uid: context.uid,
      creationTimestamp: context.now,
      labels: {
        'beta.kubernetes.io/arch': arch,
        'beta.kubernetes.io/os': 'linux',
        'kubernetes.io/arch': arch,
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        [SITE_NAME_LABEL]: context.site,
        [SITE_TYPE_LABEL]: SITE_TYPE_LABEL_VALUE[context.type],
      },
      annotations: { 'node.alpha.kubernetes.io/ttl': '0', 'volumes.kubernetes.io/controller-managed-attach-detach': 'true' },
    },
    spec: {},
    status: {
      capacity: resources,
      allocatable: { ...resources },
      conditions: healthyConditions(context.now),
      addresses: [
        { type: 'InternalIP', address: internalAddressOf(name) },
        { type: 'Hostname', address: name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: h.slice(0, 32),
        systemUUID: uuidOf(h.slice(32)),
        bootID: uuidOf(hex(`${name}/${context.uid}`)),
        kernelVersion: '5.10.0-edgeplane',
        osImage: context.containerRuntimeVersion === undefined ? 'Edgeplane simulated site' : 'Edgeplane site',
        containerRuntimeVersion: context.containerRuntimeVersion ?? DEFAULT_CONTAINER_RUNTIME,
        kubeletVersion: KUBELET_VERSION,
        kubeProxyVersion: KUBELET_VERSION,
        operatingSystem: 'linux',
        architecture: arch,
      },
    },
  };
}

/**
 * Pure: a re-registered node keeps its identity (uid, creation time) and current
 * conditions; its capacity, labels and info come from the new registration.
 */
export function reregisteredNode(fresh: KubeObject, existing: KubeObject): KubeObject {
  const status = fresh['status'] as Record<string, unknown>;
  const old = (existing['status'] ?? {}) as Record<string, unknown>;
  const nodeInfo = status['nodeInfo'] as Record<string, unknown>;
  const oldInfo = (old['nodeInfo'] ?? {}) as Record<string, unknown>;
  return {
    ...fresh,
    metadata: { ...fresh.metadata, uid: existing.metadata.uid ?? fresh.metadata.uid, creationTimestamp: existing.metadata.creationTimestamp ?? fresh.metadata.creationTimestamp },
    spec: existing['spec'] ?? fresh['spec'],
    status: {
      ...status,
      conditions: old['conditions'] ?? status['conditions'],
      nodeInfo: { ...nodeInfo, bootID: oldInfo['bootID'] ?? nodeInfo['bootID'] },
    },
  };
}

/** A site's type as its Nodes' `svc.io/siteType` label says; undefined without Nodes (an unknown site). Pure. */
export function siteTypeOfNodes(nodes: readonly KubeObject[]): SiteType | undefined {
  const value = nodes[0]?.metadata.labels?.[SITE_TYPE_LABEL];
  return (Object.keys(SITE_TYPE_LABEL_VALUE) as SiteType[]).find((type) => SITE_TYPE_LABEL_VALUE[type] === value);
}
