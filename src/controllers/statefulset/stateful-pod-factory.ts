import type { PlacedSite } from '../placement/placed-site.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { PodTemplateSpec, Volume } from '../../api/pod-spec-types.js';
import type { PersistentVolumeClaimTemplate, StatefulSetSpec } from '../../vk8s/kinds/workload-types.js';
import { cloneObject, type KubeObject } from '../../apimachinery/object.js';
import { controllerRef } from '../runtime/owner-references.js';

const POD_NAME_LABEL = 'statefulset.kubernetes.io/pod-name';
export const REVISION_LABEL = 'controller-revision-hash';

/**
 * Pod names are `<statefulset>-<site>-<ordinal>`: pod names must be unique in a vK8s, and
 * every site runs its own ordinals 0..replicas-1 (replicas are per site). Inside a site the
 * pod's hostname is kube's `<statefulset>-<ordinal>` (with the subdomain = serviceName), so
 * the stable DNS identity a workload expects is the same on every site.
 */
function statefulPodName(statefulSet: string, site: string, ordinal: number): string {
  return `${statefulSet}-${site}-${ordinal}`;
}

/** The ordinal of a pod of `statefulSet` on `site`, from its name; undefined for any other name. */
export function ordinalOf(statefulSet: string, site: string, podName: string): number | undefined {
  const prefix = `${statefulSet}-${site}-`;
  if (!podName.startsWith(prefix)) return undefined;
  const rest = podName.slice(prefix.length);
  return /^(0|[1-9]\d{0,8})$/.test(rest) ? Number(rest) : undefined;
}

/** kube's claim name: `<claim template>-<pod>`. */
function claimName(template: string, podName: string): string {
  return `${template}-${podName}`;
}

const templateName = (claim: PersistentVolumeClaimTemplate): string => (typeof claim.metadata?.name === 'string' ? claim.metadata.name : '');

interface PodArgs {
  readonly statefulSet: KubeObject;
  readonly site: PlacedSite;
  readonly ordinal: number;
  /** The site's pod template (PodTemplateFor's answer). */
  readonly template: PodTemplateSpec;
  readonly revision: string;
}

/**
 * The pod of one ordinal on one site: the site's template with kube's StatefulSet identity
 * (name, hostname, subdomain, `statefulset.kubernetes.io/pod-name`), the revision label, the
 * site label, a volume per claim template pointing at the pod's own claim, and the
 * StatefulSet as controller.
 */
export function statefulPod(args: PodArgs): KubeObject {
  const setName = args.statefulSet.metadata.name ?? '';
  const spec = (args.statefulSet.spec ?? {}) as StatefulSetSpec;
  const name = statefulPodName(setName, args.site.name, args.ordinal);
  const template = cloneObject(args.template);
  const podSpec = template.spec ?? {};
  podSpec.hostname = `${setName}-${args.ordinal}`;
  if ((spec.serviceName ?? '') !== '') podSpec.subdomain = spec.serviceName;
  const claims = spec.volumeClaimTemplates ?? [];
  if (claims.length > 0) {
    const claimVolumes: Volume[] = claims.map((claim) => ({ name: templateName(claim), persistentVolumeClaim: { claimName: claimName(templateName(claim), name) } }));
    const claimed = new Set(claimVolumes.map((v) => v.name));
    podSpec.volumes = [...(podSpec.volumes ?? []).filter((v) => !claimed.has(v.name)), ...claimVolumes];
  }
  const annotations = template.metadata?.annotations ?? undefined;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      labels: { ...(template.metadata?.labels ?? {}), [POD_NAME_LABEL]: name, [REVISION_LABEL]: args.revision, [POD_SITE_LABEL]: args.site.name },
      ...(annotations == null || Object.keys(annotations).length === 0 ? {} : { annotations: { ...annotations } }),
      ownerReferences: [controllerRef(args.statefulSet)],
    },
    spec: podSpec,
  };
}

/**
 * The claims of one pod, one per claim template (kube's getPersistentVolumeClaims): the
 * template's labels plus the StatefulSet selector's matchLabels and the site label. They have
 * no owner: like kube, scaling down or deleting the StatefulSet keeps them.
 */
export function statefulClaims(statefulSet: KubeObject, site: string, podName: string): KubeObject[] {
  const spec = (statefulSet.spec ?? {}) as StatefulSetSpec;
  return (spec.volumeClaimTemplates ?? []).map((claim) => {
    const annotations = claim.metadata?.annotations ?? undefined;
    return {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName(templateName(claim), podName),
        labels: { ...(claim.metadata?.labels ?? {}), ...(spec.selector?.matchLabels ?? {}), [POD_SITE_LABEL]: site },
        ...(annotations == null || Object.keys(annotations).length === 0 ? {} : { annotations: { ...annotations } }),
      },
      spec: cloneObject(claim.spec ?? {}),
    };
  });
}
