import { fieldError, type StatusCause } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { IDENTITY_MOUNT_PATH, IDENTITY_VOLUME_NAME, SIDECAR_CONTAINER_NAME, SIDECAR_INJECTED_ANNOTATION } from '../../api/sidecar-injection.js';
import { specOf } from './workload-types.js';

const RESERVED = 'is reserved for the workload sidecar the platform injects';

/** `/svc/secrets/identity`, `/svc/secrets/identity/`, `/svc//secrets/identity`: the same directory. */
const samePath = (path: string): boolean => path.replace(/\/+/g, '/').replace(/(.)\/$/, '$1') === IDENTITY_MOUNT_PATH;

/**
 * Pure: a pod's or pod template's use of what the sidecar injection reserves
 * (api/sidecar-injection.ts): a container or init container named `edgeplane-sidecar`, a
 * volume named `edgeplane-identity`, a mount at `/svc/secrets/identity`, the annotation
 * `svc.io/sidecar-injected`; reported at `<annotationsField>[…]` and `<specField>.…`.
 */
export function reservedSidecarProblems(annotations: Readonly<Record<string, string>> | null | undefined, spec: PodSpec, annotationsField: string, specField: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (annotations?.[SIDECAR_INJECTED_ANNOTATION] !== undefined) {
    causes.push(fieldError.forbidden(`${annotationsField}[${SIDECAR_INJECTED_ANNOTATION}]`, `${RESERVED}: it marks a pod the sidecar was injected into`));
  }
  (spec.volumes ?? []).forEach((volume, i) => {
    if (volume.name === IDENTITY_VOLUME_NAME) causes.push(fieldError.invalid(`${specField}.volumes[${i}].name`, volume.name, RESERVED));
  });
  for (const list of ['initContainers', 'containers'] as const) {
    (spec[list] ?? []).forEach((container, i) => {
      if (container.name === SIDECAR_CONTAINER_NAME) causes.push(fieldError.invalid(`${specField}.${list}[${i}].name`, container.name, RESERVED));
      (container.volumeMounts ?? []).forEach((mount, m) => {
        if (samePath(mount.mountPath ?? '')) causes.push(fieldError.invalid(`${specField}.${list}[${i}].volumeMounts[${m}].mountPath`, mount.mountPath, `${RESERVED}: its identity files are mounted there`));
      });
    });
  }
  return causes;
}

/**
 * A new pod's reserved fields. Checked at create only: an injected pod has them all, and its
 * updates keep them. Users create pods through workloads, whose templates are checked alike.
 */
export function reservedSidecarProblemsOfPod(pod: KubeObject): StatusCause[] {
  return reservedSidecarProblems(pod.metadata.annotations, specOf<PodSpec>(pod), 'metadata.annotations', 'spec');
}
