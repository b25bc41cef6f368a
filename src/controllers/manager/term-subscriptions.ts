import type { Logger } from '../../observability/logger.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { InformerEvent, InformerHandler, ObjectInformer } from '../runtime/object-informer.js';
import type { TermEvents } from './controller-context.js';

/**
 * The handlers controllers registered for one leadership term. Informers, placement and the
 * site inventory only ever add handlers, so the manager registers one dispatcher with each,
 * for the life of the process, and hands events to the current term's handlers — none once
 * the term is closed.
 */
export class TermSubscriptions implements TermEvents {
  private readonly informers = new Map<ObjectInformer, InformerHandler[]>();
  private readonly clusters: Array<(cluster: ClusterRef) => void> = [];
  private readonly sites: Array<(site: string) => void> = [];
  private closed = false;

  constructor(private readonly logger: Logger) {}

  informer(informer: ObjectInformer, handler: InformerHandler): void {
    const list = this.informers.get(informer);
    if (list === undefined) this.informers.set(informer, [handler]);
    else list.push(handler);
  }

  clusterChange(handler: (cluster: ClusterRef) => void): void {
    this.clusters.push(handler);
  }

  siteChange(handler: (site: string) => void): void {
    this.sites.push(handler);
  }

  /** No handler hears anything from now on. */
  close(): void {
    this.closed = true;
    this.informers.clear();
    this.clusters.length = 0;
    this.sites.length = 0;
  }

  tellInformer(informer: ObjectInformer, event: InformerEvent): void {
    if (!this.closed) for (const handler of this.informers.get(informer) ?? []) this.safely(() => handler(event));
  }

  tellCluster(cluster: ClusterRef): void {
    if (!this.closed) for (const handler of this.clusters) this.safely(() => handler(cluster));
  }

  tellSite(site: string): void {
    if (!this.closed) for (const handler of this.sites) this.safely(() => handler(site));
  }

  private safely(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'controller event handler failed');
    }
  }
}
