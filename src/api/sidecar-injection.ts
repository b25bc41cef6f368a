import type { KubeObject } from '../apimachinery/object.js';
import type { Container, PodSpec, Volume } from './pod-spec-types.js';

/**
 * The workload sidecar's injection into a pod, as a mutating admission webhook does it
 * (Istio's injector is the model): what the platform adds to a pod bound to a site whose
 * runtime runs real containers, and the names it reserves for that. Pure; the scheduler's
 * binding write applies it (vk8s/kinds/pod-binding.ts), the site runtimes recognise the
 * sidecar and its identity volume by these names.
 */

/** The injected container's name (reserved: a pod may not have a container of its own by this name). */
export const SIDECAR_CONTAINER_NAME = 'edgeplane-sidecar';
/**
 * The port the sidecar serves its API on, on the pod's loopback addresses (the seed's 8070).
 * Only the pod's own containers may reach it: it hands out the pod's private key, so
 * port-forward to it is refused (by the vK8s API and by the site).
 */
export const SIDECAR_PORT = 8070;
/** The volume holding the pod's identity files (reserved). */
export const IDENTITY_VOLUME_NAME = 'edgeplane-identity';
/** Where every container of the pod sees the identity files: the seed's path (reserved). */
export const IDENTITY_MOUNT_PATH = '/svc/secrets/identity';
/** Set to "true" on a pod the sidecar was injected into (reserved). */
export const SIDECAR_INJECTED_ANNOTATION = 'svc.io/sidecar-injected';
/** kubectl's (1.21+) container for logs, exec and attach when none is named; the vK8s API uses it too, for older clients. */
export const DEFAULT_CONTAINER_ANNOTATION = 'kubectl.kubernetes.io/default-container';

const SIDECAR_IMAGE_REPOSITORY = 'edgeplane/sidecar';

/** `edgeplane/sidecar:<version>`: the sidecar of the platform of that version. */
function sidecarImage(version: string): string {
  return `${SIDECAR_IMAGE_REPOSITORY}:${version}`;
}

const specOf = (pod: KubeObject): PodSpec => (typeof pod.spec === 'object' && pod.spec !== null ? (pod.spec as PodSpec) : {});

/**
 * Why port-forward to `port` of a pod that carries the sidecar is refused — `port` is the
 * sidecar's — or undefined for any other port. Pure: the vK8s API and the site say the same.
 */
export function sidecarPortForwardRefusal(port: number): string | undefined {
  if (port !== SIDECAR_PORT) return undefined;
  return `port-forward to port ${SIDECAR_PORT} is not allowed: it is the ${SIDECAR_CONTAINER_NAME}'s port, which serves the pod's identity key to the pod's own containers`;
}

/** Whether the pod carries the sidecar already (the annotation, or a container by the sidecar's name). */
export function isSidecarInjected(pod: KubeObject): boolean {
  return pod.metadata.annotations?.[SIDECAR_INJECTED_ANNOTATION] === 'true' || (specOf(pod).containers ?? []).some((c) => c.name === SIDECAR_CONTAINER_NAME);
}

/**
 * The platform version of the sidecar a pod carries (the tag of its `edgeplane/sidecar`
 * image), when the pod is marked injected and has it; otherwise undefined.
 */
export function injectedSidecarVersion(pod: KubeObject): string | undefined {
  if (pod.metadata.annotations?.[SIDECAR_INJECTED_ANNOTATION] !== 'true') return undefined;
  const image = (specOf(pod).containers ?? []).find((c) => c.name === SIDECAR_CONTAINER_NAME)?.image ?? '';
  const prefix = `${SIDECAR_IMAGE_REPOSITORY}:`;
  return image.startsWith(prefix) && image.length > prefix.length ? image.slice(prefix.length) : undefined;
}

/**
 * The sidecar container as injected: the platform's image (never pulled: sites have no
 * registry), small requests (10m CPU, 48Mi) and a memory limit of 160Mi, the identity volume
 * read-write, no probes, a read-only root and no privilege escalation. Container fields kube
 * defaults are written out, so the stored pod is what defaulting would make of it.
 */
function sidecarContainer(version: string): Container {
  return {
    name: SIDECAR_CONTAINER_NAME,
    image: sidecarImage(version),
    resources: { limits: { memory: '160Mi' }, requests: { cpu: '10m', memory: '48Mi' } },
    volumeMounts: [{ name: IDENTITY_VOLUME_NAME, mountPath: IDENTITY_MOUNT_PATH }],
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'File',
    imagePullPolicy: 'Never',
    securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false },
  };
}

/** The workload's view of the identity folder: read-only. */
function withIdentityMount(container: Container): Container {
  return { ...container, volumeMounts: [...(container.volumeMounts ?? []), { name: IDENTITY_VOLUME_NAME, readOnly: true, mountPath: IDENTITY_MOUNT_PATH }] };
}

/**
 * Pure: the pod with the workload sidecar injected — the sidecar container appended last to
 * `spec.containers`, the in-memory volume `edgeplane-identity` mounted read-write at
 * `/svc/secrets/identity` in the sidecar and read-only at the same path in every other
 * container and init container, and the annotation `svc.io/sidecar-injected: "true"` — plus
 * `kubectl.kubernetes.io/default-container` naming the first container, unless the pod names
 * one, so `kubectl logs` and `exec` without `-c` reach the workload, not the sidecar. A pod
 * that already carries the sidecar is returned as it is. The argument is not changed (the
 * result shares its unchanged parts).
 */
export function injectSidecar(pod: KubeObject, version: string): KubeObject {
  if (isSidecarInjected(pod)) return pod;
  const spec = specOf(pod);
  const volume: Volume = { name: IDENTITY_VOLUME_NAME, emptyDir: { medium: 'Memory' } };
  const injected: PodSpec = {
    ...spec,
    containers: [...(spec.containers ?? []).map(withIdentityMount), sidecarContainer(version)],
    volumes: [...(spec.volumes ?? []), volume],
  };
  if (spec.initContainers != null) injected.initContainers = spec.initContainers.map(withIdentityMount);
  return {
    ...pod,
    metadata: { ...pod.metadata, annotations: { ...defaultContainer(pod, spec), ...pod.metadata.annotations, [SIDECAR_INJECTED_ANNOTATION]: 'true' } },
    spec: injected,
  };
}

function defaultContainer(pod: KubeObject, spec: PodSpec): Record<string, string> {
  const first = spec.containers?.[0]?.name;
  return first === undefined || pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION] !== undefined ? {} : { [DEFAULT_CONTAINER_ANNOTATION]: first };
}
