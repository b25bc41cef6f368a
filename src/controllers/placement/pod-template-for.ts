import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { PodTemplateSpec } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { clusterDefaultFlavor, flavorLookup, type FlavorSource } from './flavor-catalog.js';
import { resolveContainerFlavors, type ContainerFlavors } from './flavors.js';
import type { PlacedSite } from './placed-site.js';
import { sitePodTemplate, type SitePodTemplate } from './site-pod-template.js';
import { containerNamesOf } from './workload-templates.js';

/** What controllers that make pods call: the template of `workload`'s pods on `site`. */
export type PodTemplateFor = (cluster: ClusterRef, workload: KubeObject, template: PodTemplateSpec, site: PlacedSite) => PodTemplateSpec;

/**
 * The platform's {@link PodTemplateFor}: resolves the flavors from the workload's
 * annotations (its metadata, as the seed says), the cluster's `default_flavor_ref` and the
 * workload_flavor objects of the config index, then applies {@link sitePodTemplate}. The
 * flavors of one workload version are resolved once and reused for all its sites (until a
 * flavor object or a virtual_k8s object changes).
 */
export function createPodTemplateFor(source: FlavorSource & { readonly generation: number }, apply: SitePodTemplate = sitePodTemplate): PodTemplateFor {
  const resolved = new WeakMap<KubeObject, WeakMap<PodTemplateSpec, { readonly generation: number; readonly flavors: ContainerFlavors }>>();
  return (cluster, workload, template, site) => {
    let byTemplate = resolved.get(workload);
    if (byTemplate === undefined) resolved.set(workload, (byTemplate = new WeakMap()));
    let memo = byTemplate.get(template);
    if (memo === undefined || memo.generation !== source.generation) {
      const flavors = resolveContainerFlavors({
        annotations: workload.metadata.annotations,
        containerNames: containerNamesOf(template.spec),
        clusterDefault: clusterDefaultFlavor(source, cluster),
        lookup: flavorLookup(source, cluster.tenant),
      });
      memo = { generation: source.generation, flavors };
      byTemplate.set(template, memo);
    }
    return apply(template, site, memo.flavors);
  };
}
