import { ConfigError } from '../config/errors.js';
import type { StoredObject } from '../config/envelope.js';
import { NAMESPACED_KINDS, type ConfigKind } from '../config/kinds/index.js';
import type { ObjectRegistry, Target } from '../config/registry.js';
import type { SiteRequest } from './registration-request.js';
import type { SiteState } from '../controllers/placement/site-inventory.js';
import { siteNamespaceOf } from '../site-api/site-model.js';

const ACTOR = { creatorClass: 'edgeplane-platform', creatorId: 'site-registration' };

/** Where a site's config object is. */
export interface SiteObjectRef {
  readonly tenant: string;
  readonly namespace: string;
  readonly name: string;
}

/** Pure: the status array with the site state set (the entry holding `state` replaced, others kept). */
export function statusWithState(status: StoredObject['status'], state: SiteState): StoredObject['status'] {
  const index = status.findIndex((entry) => typeof entry['state'] === 'string');
  if (index < 0) return [{ state }, ...status];
  return status.map((entry, i) => (i === index ? { ...entry, state } : entry));
}

/** The state a site object's status holds, if any. */
export function stateOfStatus(status: StoredObject['status'] | undefined): SiteState | undefined {
  const entry = (status ?? []).find((e) => typeof e['state'] === 'string');
  return entry?.['state'] as SiteState | undefined;
}

/**
 * The `site` config objects of registered sites, written through the ObjectRegistry as the
 * platform (sites have no public create): created at first registration (in the owner's
 * `system` namespace, or `svc-io-system` for regional edge), updated on re-registration
 * (labels merged over the current ones, so labels users set stay; `site_type` and `nodes`
 * replaced; `location` kept), and their state written into the status.
 */
export class SiteConfigObjects {
  private readonly kind = NAMESPACED_KINDS.get('site') as ConfigKind;

  constructor(private readonly registry: ObjectRegistry) {}

  refOf(tenant: string, site: SiteRequest): SiteObjectRef {
    return { tenant, namespace: siteNamespaceOf(site.type), name: site.name };
  }

  private target(ref: SiteObjectRef): Target {
    return { tenant: ref.tenant, kind: this.kind, namespace: ref.namespace };
  }

  /** Creates or updates the site's object; its state becomes ONLINE. */
  async ensure(tenant: string, site: SiteRequest): Promise<void> {
    const ref = this.refOf(tenant, site);
    const spec = { site_type: site.type, nodes: site.nodes.map((n) => ({ name: n.name, cpu: n.cpu, memory: n.memory })) };
    try {
      await this.registry.createDecoded(
        this.target(ref),
        { name: site.name, namespace: ref.namespace, labels: { ...site.labels }, annotations: {}, description: '', disable: false },
        spec,
        ACTOR,
      );
    } catch (error) {
      if (!(error instanceof ConfigError && error.code === 'AlreadyExists')) throw error;
      await this.registry.replaceByPlatform(this.target(ref), site.name, (current) => ({
        metadata: { ...current.metadata, labels: { ...current.metadata.labels, ...site.labels } },
        spec: { ...current.spec, ...spec },
      }));
    }
    await this.setState(ref, 'ONLINE');
  }

  /** Writes the state into the object's status (nothing when it already is). */
  async setState(ref: SiteObjectRef, state: SiteState): Promise<void> {
    await this.registry.updateStatus(this.target(ref), ref.name, (object) => (stateOfStatus(object.status) === state ? object.status : statusWithState(object.status, state)));
  }
}
