import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodTarget, StreamKind } from './types.js';
import { DEFAULT_CONTAINER_ANNOTATION, isSidecarInjected } from '../../api/sidecar-injection.js';

/** Where the pod lives on the platform. */
export interface PodScope {
  readonly tenant: string;
  readonly namespace: string;
  readonly vk8s: string;
}

interface ContainerLike {
  readonly name?: unknown;
}

function containerNames(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  return (list as ContainerLike[]).map((c) => c.name).filter((n): n is string => typeof n === 'string');
}

/**
 * Resolves the target of a pod stream as kube-apiserver 1.17 does before it contacts the node
 * (`streamLocation`, `LogLocation`, `PortForwardLocation`):
 * - exec, attach and log need a container: the requested one must be one of the pod's
 *   (containers, init or ephemeral containers), else 400 `container <c> is not valid for pod <p>`;
 *   without one, the only container is used, else 400
 *   `a container name must be specified for pod <p>, choose one of: [a b]` (`or one of the init containers: [i]`);
 * - a pod without `spec.nodeName` has no node to ask: 400 `pod <p> does not have a host assigned`,
 *   except for logs, which are then empty (`null`).
 * Port-forward does not look at containers (`container` is ""). Beyond 1.17: without a
 * container, `kubectl.kubernetes.io/default-container` (set on pods the sidecar is injected
 * into) names the one to use when it is one of the pod's, as kubectl 1.21+ does itself. A pod
 * the sidecar was injected into is marked (`sidecar`): its port is not forwarded.
 */
export function podStreamTarget(pod: KubeObject, requested: string | undefined, scope: PodScope, kind: StreamKind | 'log'): PodTarget | null {
  const name = pod.metadata.name ?? '';
  const spec = (pod['spec'] ?? {}) as Record<string, unknown>;
  let container = '';
  if (kind !== 'portforward') {
    const containers = containerNames(spec['containers']);
    const inits = containerNames(spec['initContainers']);
    const annotated = pod.metadata.annotations?.[DEFAULT_CONTAINER_ANNOTATION];
    if ((requested === undefined || requested === '') && annotated !== undefined && containers.includes(annotated)) container = annotated;
    else if (requested === undefined || requested === '') {
      if (containers.length === 1) container = containers[0] ?? '';
      else if (containers.length === 0) throw StatusError.badRequest(`a container name must be specified for pod ${name}`);
      else {
        const choices = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
        throw StatusError.badRequest(inits.length > 0 ? `${choices} or one of the init containers: [${inits.join(' ')}]` : choices);
      }
    } else {
      const all = [...containers, ...inits, ...containerNames(spec['ephemeralContainers'])];
      if (!all.includes(requested)) throw StatusError.badRequest(`container ${requested} is not valid for pod ${name}`);
      container = requested;
    }
  }
  const nodeName = spec['nodeName'];
  if (typeof nodeName !== 'string' || nodeName === '') {
    if (kind === 'log') return null;
    throw StatusError.badRequest(`pod ${name} does not have a host assigned`);
  }
  const uid = pod.metadata.uid;
  return { ...scope, pod: name, ...(uid === undefined ? {} : { uid }), container, ...(isSidecarInjected(pod) ? { sidecar: true } : {}) };
}
