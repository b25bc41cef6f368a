import { StatusError } from '../apimachinery/errors/status-error.js';
import type { EventRecorder } from '../controllers/events/event-recorder.js';
import type { PlacementView } from '../controllers/placement/placement-view.js';
import type { GenericStore } from '../registry/generic-store.js';
import { forEachLimit } from './for-each-limit.js';
import type { PodEventItem, PodWriteResult } from './site-pod-writes.js';

const SERVICES = { group: '', resource: 'services' } as const;
/** The component a site's Service proxy Events name (kube-proxy's role on the site). */
const COMPONENT = 'edgeplane-site-proxy';

/**
 * Events a site's Service proxy reports about Services placed on it (`POST
 * /api/sites/v1/services/events`, the same item shape as pod Events): each recorded on the
 * Service only when it is placed on one of the agent's sites (else 403) and is still the
 * incarnation the site saw (else 409); one failure does not fail the batch.
 */
export async function recordServiceEvents(deps: { services: GenericStore; placement: PlacementView; recorder: EventRecorder }, sites: ReadonlySet<string>, items: readonly PodEventItem[]): Promise<PodWriteResult[]> {
  const results = new Array<PodWriteResult>(items.length);
  await forEachLimit(items, 8, async (item, i) => {
    try {
      const service = await deps.services.get(item.cluster, item.name);
      const placed = deps.placement.sitesFor(SERVICES, item.cluster, service).filter((s) => sites.has(s.name));
      if (placed.length === 0) throw StatusError.forbidden(SERVICES, item.name, 'the Service is not placed on a site of this agent');
      if (service.metadata.uid !== item.uid) throw StatusError.conflict(SERVICES, item.name, `the Service was made again (uid ${service.metadata.uid ?? ''}, not ${item.uid})`);
      deps.recorder.record(item.cluster, service, item.type, item.reason, item.message, COMPONENT, placed.map((s) => s.name).join(','));
      results[i] = { name: item.name };
    } catch (error) {
      if (!(error instanceof StatusError)) throw error;
      results[i] = { name: item.name, error: error.message, reason: error.reason, code: error.code };
    }
  });
  return results;
}
