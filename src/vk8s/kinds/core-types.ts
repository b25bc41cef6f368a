import type { KubeObject } from '../../apimachinery/object.js';

/**
 * Typed views of the core (v1) kinds' fields that the strategies read and default. Bodies
 * arrive checked against the 1.17 OpenAPI definitions, so field types hold; any field may be
 * absent. `int-or-string` fields are JSON numbers or strings.
 */
export type IntOrString = number | string;

export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: IntOrString;
  nodePort?: number;
}

export interface ServiceSpec {
  type?: string;
  clusterIP?: string;
  ports?: ServicePort[];
  selector?: Record<string, string> | null;
  sessionAffinity?: string;
  sessionAffinityConfig?: { clientIP?: { timeoutSeconds?: number } | null } | null;
  externalName?: string;
  externalIPs?: string[];
  externalTrafficPolicy?: string;
  healthCheckNodePort?: number;
  loadBalancerIP?: string;
  loadBalancerSourceRanges?: string[];
  publishNotReadyAddresses?: boolean;
}

export interface LoadBalancerStatus {
  ingress?: { ip?: string; hostname?: string }[];
}

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  apiVersion?: string;
  resourceVersion?: string;
  fieldPath?: string;
}

export interface EndpointAddress {
  ip?: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port?: number;
  protocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Taint {
  key?: string;
  value?: string;
  effect?: string;
  timeAdded?: string;
}

export interface NodeSpec {
  podCIDR?: string;
  podCIDRs?: string[];
  providerID?: string;
  unschedulable?: boolean;
  taints?: Taint[];
}

export interface NodeStatus {
  capacity?: Record<string, IntOrString>;
  allocatable?: Record<string, IntOrString>;
  addresses?: { type?: string; address?: string }[];
  phase?: string;
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key?: string; operator?: string; values?: string[] }[];
}

export interface PersistentVolumeClaimSpec {
  accessModes?: string[];
  selector?: LabelSelector | null;
  resources?: { requests?: Record<string, IntOrString>; limits?: Record<string, IntOrString> };
  volumeName?: string;
  storageClassName?: string | null;
  volumeMode?: string | null;
  dataSource?: { apiGroup?: string; kind?: string; name?: string } | null;
}

/** A PersistentVolumeSpec: the common fields plus exactly one volume source (any other key). */
export interface PersistentVolumeSpec {
  capacity?: Record<string, IntOrString>;
  accessModes?: string[];
  claimRef?: ObjectReference | null;
  persistentVolumeReclaimPolicy?: string;
  storageClassName?: string;
  mountOptions?: string[];
  volumeMode?: string | null;
  nodeAffinity?: unknown;
  [source: string]: unknown;
}

/** The field `key` of `object` viewed as `T` (an empty view when absent; nothing is written). */
export function view<T extends object>(object: KubeObject, key: string): T {
  const value = object[key];
  return (typeof value === 'object' && value !== null ? value : {}) as T;
}

/** The field `key` of `object` viewed as `T`, created as `{}` when absent (for defaulting). */
export function ensure<T extends object>(object: KubeObject, key: string): T {
  const value = object[key];
  if (typeof value === 'object' && value !== null) return value as T;
  const created = {};
  object[key] = created;
  return created as T;
}

/** A string map field (`data`, `labels`, `selector`), empty when absent. */
export function stringMap(value: unknown): Record<string, string> {
  return typeof value === 'object' && value !== null ? (value as Record<string, string>) : {};
}
