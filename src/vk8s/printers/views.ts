import type { KubeObject } from '../../apimachinery/object.js';

/**
 * The fields the printers read, typed as the 1.17 OpenAPI schema allows them. Objects reach
 * the printers after schema checks, so a present field has its schema's type, but any field
 * may be absent: every property is optional and every read has a default.
 */
export interface LabelSelectorView {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key?: string; operator?: string; values?: string[] }>;
}

export interface ContainerView {
  name?: string;
  image?: string;
}

interface PodTemplateView {
  metadata?: { labels?: Record<string, string> };
  spec?: { containers?: ContainerView[] };
}

interface ContainerStateView {
  waiting?: { reason?: string };
  running?: { startedAt?: string };
  terminated?: { reason?: string; exitCode?: number; signal?: number };
}

export interface ContainerStatusView {
  name?: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerStateView;
}

export interface PodView extends KubeObject {
  spec?: {
    containers?: ContainerView[];
    initContainers?: ContainerView[];
    nodeName?: string;
    readinessGates?: Array<{ conditionType?: string }>;
  };
  status?: {
    phase?: string;
    reason?: string;
    podIP?: string;
    podIPs?: Array<{ ip?: string }>;
    nominatedNodeName?: string;
    conditions?: Array<{ type?: string; status?: string }>;
    initContainerStatuses?: ContainerStatusView[];
    containerStatuses?: ContainerStatusView[];
  };
}

export interface WorkloadView extends KubeObject {
  spec?: { replicas?: number; selector?: LabelSelectorView; template?: PodTemplateView };
  status?: { replicas?: number; readyReplicas?: number; updatedReplicas?: number; availableReplicas?: number };
}

export interface JobView extends KubeObject {
  spec?: { completions?: number; parallelism?: number; selector?: LabelSelectorView; template?: PodTemplateView };
  status?: { succeeded?: number; startTime?: string; completionTime?: string };
}

export interface CronJobView extends KubeObject {
  spec?: {
    schedule?: string;
    suspend?: boolean;
    jobTemplate?: { spec?: { selector?: LabelSelectorView; template?: PodTemplateView } };
  };
  status?: { active?: unknown[]; lastScheduleTime?: string };
}

export interface ServiceView extends KubeObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    externalIPs?: string[];
    externalName?: string;
    ports?: Array<{ port?: number; nodePort?: number; protocol?: string }>;
    selector?: Record<string, string>;
  };
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } };
}

export interface EndpointsView extends KubeObject {
  subsets?: Array<{
    addresses?: Array<{ ip?: string }>;
    ports?: Array<{ name?: string; port?: number }>;
  }>;
}

export interface NodeView extends KubeObject {
  spec?: { unschedulable?: boolean };
  status?: {
    conditions?: Array<{ type?: string; status?: string }>;
    addresses?: Array<{ type?: string; address?: string }>;
    nodeInfo?: { kubeletVersion?: string; osImage?: string; kernelVersion?: string; containerRuntimeVersion?: string };
  };
}

export interface EventView extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  firstTimestamp?: string;
  lastTimestamp?: string;
  involvedObject?: { kind?: string; name?: string; fieldPath?: string };
  source?: { component?: string; host?: string };
}

export interface PersistentVolumeView extends KubeObject {
  spec?: {
    capacity?: Record<string, string>;
    accessModes?: string[];
    persistentVolumeReclaimPolicy?: string;
    claimRef?: { namespace?: string; name?: string };
    storageClassName?: string;
    volumeMode?: string;
  };
  status?: { phase?: string; reason?: string };
}

export interface PersistentVolumeClaimView extends KubeObject {
  spec?: {
    volumeName?: string;
    storageClassName?: string;
    volumeMode?: string;
    resources?: { requests?: Record<string, string> };
  };
  status?: { phase?: string; accessModes?: string[]; capacity?: Record<string, string> };
}
