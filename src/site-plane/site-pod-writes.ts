import { StatusError } from '../apimachinery/errors/status-error.js';
import type { GenericStore } from '../registry/generic-store.js';
import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import { forEachLimit } from './for-each-limit.js';
import type { EventRecorder } from '../controllers/events/event-recorder.js';
import { POD_SITE_LABEL } from '../site-api/site-model.js';

/** One result of a batch: the pod's name, and on failure the Status message, reason and code. */
export interface PodWriteResult {
  readonly name: string;
  readonly error?: string;
  readonly reason?: string;
  readonly code?: number;
}

export interface PodRef {
  readonly cluster: ClusterRef;
  readonly name: string;
  readonly uid: string;
}

const PODS = { resource: 'pods', group: '' };
const MAX_ITEMS = 10_000;
type Json = Record<string, unknown>;
const asObject = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined);

function parseCluster(value: unknown): ClusterRef | undefined {
  const c = asObject(value);
  const tenant = c?.['tenant'];
  const namespace = c?.['namespace'];
  const name = c?.['name'];
  return typeof tenant === 'string' && typeof namespace === 'string' && typeof name === 'string' && tenant !== '' && namespace !== '' && name !== '' ? { tenant, namespace, name } : undefined;
}

/** Pure: `{"items":[{cluster, name, uid, …}]}` checked; each item keeps its extra fields (`status`). */
export function parsePodBatch(body: unknown, needsStatus: boolean): Array<PodRef & { readonly status?: Json }> {
  const items = asObject(body)?.['items'];
  if (!Array.isArray(items)) throw StatusError.badRequest('the body must be {"items": [...]}');
  if (items.length > MAX_ITEMS) throw StatusError.badRequest(`items: at most ${MAX_ITEMS} per request`);
  return items.map((raw, i) => {
    const item = asObject(raw) ?? {};
    const cluster = parseCluster(item['cluster']);
    const { name, uid } = item;
    const status = asObject(item['status']);
    if (cluster === undefined) throw StatusError.badRequest(`items[${i}].cluster: must be {"tenant","namespace","name"}`);
    if (typeof name !== 'string' || name === '') throw StatusError.badRequest(`items[${i}].name: is required`);
    if (typeof uid !== 'string' || uid === '') throw StatusError.badRequest(`items[${i}].uid: is required`);
    if (needsStatus && status === undefined) throw StatusError.badRequest(`items[${i}].status: must be a PodStatus object`);
    return { cluster, name, uid, ...(status === undefined ? {} : { status }) };
  });
}

/** One Event a site reports about one of its pods (kubelet's: Created, Started, BackOff, Unhealthy, …). */
export interface PodEventItem extends PodRef {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly message: string;
}

/** Pure: `{"items":[{cluster, name, uid, type, reason, message}]}` checked (a reason is a CamelCase word, a message at most 1 KiB). */
export function parsePodEventBatch(body: unknown): PodEventItem[] {
  const pods = parsePodBatch(body, false);
  const raw = asObject(body)?.['items'] as unknown[];
  return pods.map((pod, i) => {
    const item = asObject(raw[i]) ?? {};
    const { type, reason, message } = item;
    if (type !== 'Normal' && type !== 'Warning') throw StatusError.badRequest(`items[${i}].type: must be Normal or Warning`);
    if (typeof reason !== 'string' || !/^[A-Z][A-Za-z0-9]{0,127}$/.test(reason)) throw StatusError.badRequest(`items[${i}].reason: must be a CamelCase word of at most 128 characters`);
    if (typeof message !== 'string' || message.length > 1024) throw StatusError.badRequest(`items[${i}].message: must be a string of at most 1024 characters`);
    return { cluster: pod.cluster, name: pod.name, uid: pod.uid, type, reason, message };
  });
}

/** Throws 403 unless the pod is made for one of `sites`. */
function checkSite(pod: KubeObject, sites: ReadonlySet<string>): void {
  const site = pod.metadata.labels?.[POD_SITE_LABEL];
  if (site === undefined || !sites.has(site)) {
    throw StatusError.forbidden(PODS, pod.metadata.name ?? '', `the pod is not on a site of this agent (its ${POD_SITE_LABEL} is ${JSON.stringify(site ?? '')})`);
  }
}

function failed(name: string, error: unknown): PodWriteResult {
  if (error instanceof StatusError) return { name, error: error.message, reason: error.reason, code: error.code };
  throw error;
}

/**
 * The site-facing pod writes: batched status reports and terminations, each item on its own
 * (one failure does not fail the batch), only for pods made for the agent's sites (another
 * site's pod → 403 in its result), each conditioned on the pod's uid (a pod deleted and made
 * again under the same name is not touched: 409).
 */
export class SitePodWrites {
  constructor(
    private readonly pods: GenericStore,
    /**
     * Items written at once. The store commits the writes queued in one turn of the event loop
     * together, so a batch written 256 at a time costs a few commits instead of one per 16
     * items (an agent has one batch in flight: this bounds how fast a site's statuses land).
     */
    private readonly concurrency = 256,
  ) {}

  /** Writes each item's status through the status subresource, as field manager `site-agent:<agent>`. */
  async writeStatuses(agent: string, sites: ReadonlySet<string>, items: ReadonlyArray<PodRef & { readonly status?: Json }>): Promise<PodWriteResult[]> {
    const results: PodWriteResult[] = new Array<PodWriteResult>(items.length);
    await forEachLimit(items, this.concurrency, async (item, i) => {
      try {
        await this.pods.update(
          { cluster: item.cluster, dryRun: false, fieldManager: `site-agent:${agent}` },
          item.name,
          (current) => {
            checkSite(current, sites);
            return { ...current, metadata: { ...current.metadata, uid: item.uid }, status: item.status };
          },
          { subresource: 'status', retryOnConflict: true },
        );
        results[i] = { name: item.name };
      } catch (error) {
        results[i] = failed(item.name, error);
      }
    });
    return results;
  }

  /**
   * Records each Event on its pod (source `kubelet` on the pod's node, as kubelet's), after the
   * same checks as a status: the pod is on one of `sites`, with that uid (409 otherwise).
   */
  async events(sites: ReadonlySet<string>, items: readonly PodEventItem[], recorder: EventRecorder): Promise<PodWriteResult[]> {
    const results: PodWriteResult[] = new Array<PodWriteResult>(items.length);
    await forEachLimit(items, this.concurrency, async (item, i) => {
      try {
        const pod = await this.pods.get(item.cluster, item.name);
        checkSite(pod, sites);
        if (pod.metadata.uid !== item.uid) throw StatusError.conflict(PODS, item.name, `the pod was made again (uid ${pod.metadata.uid ?? ''}, not ${item.uid})`);
        const node = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName;
        recorder.record(item.cluster, pod, item.type, item.reason, item.message, 'kubelet', node);
        results[i] = { name: item.name };
      } catch (error) {
        results[i] = failed(item.name, error);
      }
    });
    return results;
  }

  /** Removes pods the site stopped (they were marked for deletion): grace 0, uid precondition. */
  async terminated(agent: string, sites: ReadonlySet<string>, items: readonly PodRef[]): Promise<PodWriteResult[]> {
    const results: PodWriteResult[] = new Array<PodWriteResult>(items.length);
    await forEachLimit(items, this.concurrency, async (item, i) => {
      try {
        checkSite(await this.pods.get(item.cluster, item.name), sites);
        await this.pods.delete({ cluster: item.cluster, dryRun: false, fieldManager: `site-agent:${agent}` }, item.name, { gracePeriodSeconds: 0, preconditions: { uid: item.uid } });
        results[i] = { name: item.name };
      } catch (error) {
        // Already gone: what the site asked for.
        results[i] = error instanceof StatusError && error.reason === 'NotFound' ? { name: item.name } : failed(item.name, error);
      }
    });
    return results;
  }
}
