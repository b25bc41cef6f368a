/**
 * Typed views of the core/v1 types inside pod templates (k8s.io/api/core/v1), as the decoded
 * JSON a strategy receives. Bodies were checked against the 1.17 OpenAPI document, so field
 * types can be trusted; every field stays optional because absent is a meaningful state.
 * Fields the rules never read are left to the index signatures.
 */

/** A resource.Quantity as JSON: a string, or a bare number YAML clients send. */
export type QuantityValue = string | number;

export type ResourceList = Record<string, QuantityValue>;

/** intstr.IntOrString. */
export type IntOrString = number | string;

interface LabelSelectorRequirement {
  key?: string;
  operator?: string;
  values?: string[] | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: LabelSelectorRequirement[] | null;
}

/** The metadata of a pod or job template. */
export interface TemplateMeta {
  labels?: Record<string, string> | null;
  annotations?: Record<string, string> | null;
  creationTimestamp?: string | null;
  [field: string]: unknown;
}

export interface KeyToPath {
  key?: string;
  path?: string;
  mode?: number;
}

export interface ObjectFieldSelector {
  apiVersion?: string;
  fieldPath?: string;
}

export interface ResourceFieldSelector {
  containerName?: string;
  resource?: string;
  divisor?: QuantityValue;
}

export interface DownwardAPIVolumeFile {
  path?: string;
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  mode?: number;
}

export interface ProjectionSource {
  secret?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPath[]; optional?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[] };
  serviceAccountToken?: { audience?: string; expirationSeconds?: number; path?: string };
}

/** A volume: its name and exactly one source field. */
export interface Volume {
  name?: string;
  emptyDir?: { medium?: string; sizeLimit?: QuantityValue };
  hostPath?: { path?: string; type?: string };
  secret?: { secretName?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  configMap?: { name?: string; items?: KeyToPath[]; defaultMode?: number; optional?: boolean };
  persistentVolumeClaim?: { claimName?: string; readOnly?: boolean };
  downwardAPI?: { items?: DownwardAPIVolumeFile[]; defaultMode?: number };
  projected?: { sources?: ProjectionSource[] | null; defaultMode?: number };
  [source: string]: unknown;
}

export interface ContainerPort {
  name?: string;
  hostPort?: number;
  containerPort?: number;
  protocol?: string;
  hostIP?: string;
}

interface EnvVarSource {
  fieldRef?: ObjectFieldSelector;
  resourceFieldRef?: ResourceFieldSelector;
  configMapKeyRef?: { name?: string; key?: string; optional?: boolean };
  secretKeyRef?: { name?: string; key?: string; optional?: boolean };
}

export interface EnvVar {
  name?: string;
  value?: string;
  valueFrom?: EnvVarSource;
}

export interface EnvFromSource {
  prefix?: string;
  configMapRef?: { name?: string; optional?: boolean };
  secretRef?: { name?: string; optional?: boolean };
}

export interface VolumeMount {
  name?: string;
  readOnly?: boolean;
  mountPath?: string;
  subPath?: string;
  subPathExpr?: string;
  mountPropagation?: string;
}

export interface VolumeDevice {
  name?: string;
  devicePath?: string;
}

interface HttpGetAction {
  path?: string;
  port?: IntOrString;
  host?: string;
  scheme?: string;
  httpHeaders?: Array<{ name?: string; value?: string }>;
}

/** A probe or lifecycle handler: exactly one of exec, httpGet, tcpSocket. */
export interface Handler {
  exec?: { command?: string[] | null };
  httpGet?: HttpGetAction;
  tcpSocket?: { port?: IntOrString; host?: string };
}

export interface Probe extends Handler {
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
}

export interface ResourceRequirements {
  limits?: ResourceList | null;
  requests?: ResourceList | null;
}

export interface SecurityContext {
  privileged?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  runAsUser?: number;
  runAsGroup?: number;
  procMount?: string;
  [field: string]: unknown;
}

export interface Container {
  name?: string;
  image?: string;
  ports?: ContainerPort[] | null;
  env?: EnvVar[] | null;
  envFrom?: EnvFromSource[] | null;
  resources?: ResourceRequirements;
  volumeMounts?: VolumeMount[] | null;
  volumeDevices?: VolumeDevice[] | null;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { postStart?: Handler; preStop?: Handler };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  imagePullPolicy?: string;
  securityContext?: SecurityContext;
  [field: string]: unknown;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

interface PodSecurityContext {
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  supplementalGroups?: number[] | null;
  sysctls?: Array<{ name?: string; value?: string }> | null;
  [field: string]: unknown;
}

export interface PodDNSConfig {
  nameservers?: string[] | null;
  searches?: string[] | null;
  options?: Array<{ name?: string; value?: string }> | null;
}

export interface PodSpec {
  volumes?: Volume[] | null;
  initContainers?: Container[] | null;
  containers?: Container[] | null;
  ephemeralContainers?: unknown[] | null;
  restartPolicy?: string;
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  nodeSelector?: Record<string, string> | null;
  serviceAccountName?: string;
  serviceAccount?: string;
  nodeName?: string;
  hostNetwork?: boolean;
  hostPID?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: PodSecurityContext;
  imagePullSecrets?: Array<Record<string, unknown>> | null;
  hostname?: string;
  subdomain?: string;
  affinity?: Record<string, unknown>;
  schedulerName?: string;
  tolerations?: Toleration[] | null;
  hostAliases?: Array<{ ip?: string; hostnames?: string[] | null }> | null;
  priorityClassName?: string;
  priority?: number;
  dnsConfig?: PodDNSConfig;
  readinessGates?: Array<{ conditionType?: string }> | null;
  runtimeClassName?: string;
  enableServiceLinks?: boolean;
  preemptionPolicy?: string;
  overhead?: ResourceList | null;
  topologySpreadConstraints?: unknown[] | null;
  [field: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: TemplateMeta;
  spec?: PodSpec;
}

/** A JSON object as a record, or undefined for anything else. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
