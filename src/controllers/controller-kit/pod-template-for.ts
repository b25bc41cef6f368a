import type { PlacedSite } from '../../placement/placed-site.js';
import type { ClusterRef } from '../../registry/strategy.js';
import type { PodTemplateSpec } from '../../vk8s/kinds/pod-spec-types.js';
import type { KubeObject } from '../../vk8s/object.js';

/**
 * The template of the pods `workload` runs on `site` (the placement task's factory: flavors
 * resolved from the workload's annotations, then the site pod template applied: label
 * `svc.io/siteName`, site env, flavor limits). Pure; never mutates its arguments.
 */
export type PodTemplateFor = (cluster: ClusterRef, workload: KubeObject, template: PodTemplateSpec, site: PlacedSite) => PodTemplateSpec;
