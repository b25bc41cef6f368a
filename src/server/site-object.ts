import { NAMESPACED_KINDS, type ConfigKind } from '../config/kinds/index.js';
import type { ObjectRegistry } from '../config/registry.js';

/** A site object's facts, as registration gives them. */
export interface SiteRegistration {
  readonly tenant: string;
  readonly namespace: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly spec: Record<string, unknown>;
}

/** Creates a site object as the platform does when a site registers (sites have no public create). */
export async function createSiteObject(registry: ObjectRegistry, site: SiteRegistration): Promise<void> {
  const kind = NAMESPACED_KINDS.get('site') as ConfigKind;
  await registry.createDecoded(
    { tenant: site.tenant, kind, namespace: site.namespace },
    { name: site.name, namespace: site.namespace, labels: site.labels, annotations: {}, description: '', disable: false },
    site.spec,
    { creatorClass: 'edgeplane-platform', creatorId: 'site-registration' },
  );
}
