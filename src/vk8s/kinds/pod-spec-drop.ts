import type { PodSpec } from '../../api/pod-spec-types.js';

/**
 * DropDisabledPodFields / DropDisabledTemplateFields for kube-apiserver 1.17's default feature
 * gates: fields of alpha features (startupProbe, ephemeralContainers, overhead,
 * topologySpreadConstraints, preemptionPolicy, procMount) are cleared on create, and on update
 * unless the stored object already uses them. In place.
 */
export function dropDisabledPodSpecFields(spec: PodSpec | undefined, old: PodSpec | undefined): void {
  if (spec == null) return;
  const containers = (s: PodSpec | undefined) => [...(s?.containers ?? []), ...(s?.initContainers ?? [])];
  if (!containers(old).some((c) => c.startupProbe != null)) for (const c of containers(spec)) delete c.startupProbe;
  if (!containers(old).some((c) => c.securityContext?.procMount != null)) {
    for (const c of containers(spec)) delete c.securityContext?.procMount;
  }
  for (const field of ['ephemeralContainers', 'overhead', 'topologySpreadConstraints', 'preemptionPolicy'] as const) {
    if (old?.[field] == null) delete spec[field];
  }
}
