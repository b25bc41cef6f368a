import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { Container, PodTemplateSpec } from '../../api/pod-spec-types.js';
import { cloneObject } from '../../apimachinery/object.js';
import { limitResources } from './flavor-limits.js';
import { flavorOfContainer, type ContainerFlavors } from './flavors.js';
import type { PlacedSite } from './placed-site.js';
import { siteEnv, withSiteEnv } from './site-env.js';

/**
 * The template of the pods a workload runs on `site`: label `svc.io/siteName`, env
 * SVC_IO_SITENAME / SVC_IO_SITETYPE (and region/country/provider/fleet from site labels),
 * flavor limits (RE: flavor caps limits; CE: container limits honoured, flavor when none).
 * Pure; `flavors` resolved beforehand from the workload's annotations.
 */
export type SitePodTemplate = (template: PodTemplateSpec, site: PlacedSite, flavors: ContainerFlavors) => PodTemplateSpec;

/** The {@link SitePodTemplate} of the platform; the input is not changed. */
export const sitePodTemplate: SitePodTemplate = (template, site, flavors) => {
  const result = cloneObject(template);
  const metadata = (result.metadata ??= {});
  metadata.labels = { ...(metadata.labels ?? {}), [POD_SITE_LABEL]: site.name };
  const env = siteEnv(site);
  const adapt = (container: Container): Container => ({
    ...container,
    env: withSiteEnv(container.env, env),
    resources: limitResources(container.resources, flavorOfContainer(flavors, container.name ?? ''), site.type),
  });
  const spec = (result.spec ??= {});
  spec.containers = (spec.containers ?? []).map(adapt);
  if (spec.initContainers !== undefined && spec.initContainers !== null) spec.initContainers = spec.initContainers.map(adapt);
  return result;
};
