import type { InformerEvent, ObjectInformer } from '../controllers/runtime/object-informer.js';
import { formatObjectKey, type ObjectKey } from '../controllers/runtime/object-key.js';
import type { KubeObject } from '../apimachinery/object.js';
import { POD_SITE_LABEL } from '../site-api/site-model.js';

export interface SitePod {
  readonly key: ObjectKey;
  /** Shared with the informer: never mutate. */
  readonly object: KubeObject;
}

/**
 * The pods of every virtual cluster indexed by the site they are made for (label
 * `svc.io/siteName`), fed by a pods informer: which pods a site's failure concerns, without
 * scanning every pod of the platform.
 */
export class PodsBySite {
  private readonly bySite = new Map<string, Map<string, SitePod>>();

  /** Register before the informer starts, so its first snapshot is indexed too. */
  constructor(informer: ObjectInformer) {
    informer.onEvent((event) => this.apply(event));
  }

  /** The pods labelled for `site`, across every tenant and cluster. */
  podsOf(site: string): SitePod[] {
    return [...(this.bySite.get(site)?.values() ?? [])];
  }

  private apply(event: InformerEvent): void {
    const id = formatObjectKey(event.key);
    if (event.type === 'updated') this.remove(event.old, id);
    if (event.type === 'deleted') this.remove(event.object, id);
    else this.add(event.object, id, event.key);
  }

  private add(object: KubeObject, id: string, key: ObjectKey): void {
    const site = object.metadata.labels?.[POD_SITE_LABEL];
    if (site === undefined) return;
    let pods = this.bySite.get(site);
    if (pods === undefined) this.bySite.set(site, (pods = new Map<string, SitePod>()));
    pods.set(id, { key, object });
  }

  private remove(object: KubeObject, id: string): void {
    const site = object.metadata.labels?.[POD_SITE_LABEL];
    if (site === undefined) return;
    const pods = this.bySite.get(site);
    pods?.delete(id);
    if (pods?.size === 0) this.bySite.delete(site);
  }
}
