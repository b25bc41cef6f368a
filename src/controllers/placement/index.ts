/** Placement of virtual-cluster objects on sites, workload flavors, and the site pod template (issue 5). */
export type { PlacedSite } from './placed-site.js';
export type { PlacementView, ResourceKind } from './placement-view.js';
export { PlacementConfigIndex, type ConfigIndexChange } from './config-index.js';
export { PlacementEngine, FAILED_PLACEMENT_REASON, type PlacementEngineOptions, type SiteStateSource } from './placement-engine.js';
export { decidePlacement, type PlacementCatalog, type PlacementDecision, type PlacementRequest, type PlacementSource } from './placement-rules.js';
export { parseRefList, type NamespacedName } from './placement-annotations.js';
export { siteWorkRule, type SiteState, type SiteWork } from './site-work-rule.js';
export { siteVisibleTo, virtualSiteSelects } from './site-visibility.js';
export { BUILTIN_FLAVORS, DEFAULT_FLAVOR, resolveContainerFlavors, flavorOfContainer, type ContainerFlavors, type Flavor } from './flavors.js';
export { allowedFlavorValues, clusterDefaultFlavor, flavorLookup, type FlavorSource } from './flavor-catalog.js';
export { validateFlavorAnnotations, FLAVORED_KINDS } from './flavor-admission.js';
export { createFlavorAdmission } from './flavor-admission-hook.js';
export { limitResources } from './flavor-limits.js';
export { siteEnv, SITE_FACT_LABELS } from './site-env.js';
export { sitePodTemplate, type SitePodTemplate } from './site-pod-template.js';
export { createPodTemplateFor, type PodTemplateFor } from './pod-template-for.js';
