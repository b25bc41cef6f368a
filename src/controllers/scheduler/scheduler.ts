import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { GenericStore, RequestScope } from '../../registry/generic-store.js';
import { POD_SITE_LABEL, runtimeRunsSidecars } from '../../site-api/site-model.js';
import { injectSidecar } from '../../api/sidecar-injection.js';
import type { PodSpec } from '../../api/pod-spec-types.js';
import { specOf } from '../../vk8s/kinds/workload-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { clusterKeyOf, formatObjectKey, parseQueueKey, type ObjectKey } from '../runtime/object-key.js';
import { podConditionOf, podStatusOf, type PodCondition } from '../runtime/pod-state.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { NodeAccounting } from './node-accounting.js';
import { podLimits, podRequests } from './pod-resources.js';
import { decide } from './schedule-decision.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

const SCHEDULER_FIELD_MANAGER = 'edgeplane-scheduler';
const COMPONENT = 'default-scheduler';
/** Unschedulable pods are tried again after this long even without a change (kube's unschedulable queue flush: 60 s). */
const UNSCHEDULABLE_RETRY_MS = 60_000;

/**
 * The scheduler: binds every unbound pod labelled `svc.io/siteName` (and not being deleted, of
 * the default scheduler) to a Ready node of that site (`sites.nodesOf`) where its requests fit
 * beside the pods already bound there, within the site's per-vK8s quota on limits
 * (`sites.quotaOf`). A binding is the pods store's platform-only `binding` write (spec.nodeName
 * and PodScheduled True) plus a Scheduled event; a pod that fits nowhere stays Pending with
 * PodScheduled False (reason Unschedulable) and a FailedScheduling event in kube's words, and
 * is tried again when a pod of its site goes or the site's nodes change (and every minute).
 * Decisions use an in-memory account of bound pods, updated at once by its own bindings.
 *
 * On a site whose runtime runs the workload sidecar (runc), the pod is placed as it will run:
 * with the sidecar injected (`injectSidecar`, image `edgeplane/sidecar:<platformVersion>`),
 * its requests counting in the fit and its limits in the quota, and the binding write injects
 * it in the same write, as a mutating admission webhook would.
 */
export function schedulerController(options: { readonly platformVersion: string; readonly workers?: number }): ControllerStarter {
  return {
    name: 'scheduler',
    start: (context) => {
      const { informers, sites, events, clock } = context;
      const pods = context.storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;
      const accounting = new NodeAccounting();
      const waiting = new Map<string, Set<string>>();

      const reconcile = async (key: ObjectKey, queueKey: string): Promise<{ requeueAfterMs: number } | undefined> => {
        const pod = informers.pods.get(key.cluster, key.name);
        const site = pod === undefined ? undefined : pendingSite(pod);
        if (pod === undefined || site === undefined || accounting.get(queueKey)?.uid === pod.metadata.uid) return undefined;
        const sidecarVersion = runtimeRunsSidecars(sites.runtimeOf(site)) ? options.platformVersion : undefined;
        const placed = sidecarVersion === undefined ? pod : injectSidecar(pod, sidecarVersion);
        const requests = podRequests(placed);
        const limits = podLimits(placed);
        const cluster = clusterKeyOf(key.cluster);
        const decision = decide({
          pod: placed,
          requests,
          limits,
          site,
          cluster,
          clusterName: `${key.cluster.namespace}/${key.cluster.name}`,
          nodes: sites.nodesOf(site),
          quota: sites.quotaOf(site),
          accounting,
        });
        const scope: RequestScope = { cluster: key.cluster, dryRun: false, fieldManager: SCHEDULER_FIELD_MANAGER };
        if ('unschedulable' in decision) {
          waitFor(site, queueKey);
          await markUnschedulable(pods, scope, pod, decision.unschedulable, clock.now());
          events.record(key.cluster, pod, 'Warning', 'FailedScheduling', decision.unschedulable, COMPONENT);
          return { requeueAfterMs: UNSCHEDULABLE_RETRY_MS };
        }
        const nodeName = decision.node.metadata.name ?? '';
        accounting.assign(queueKey, { uid: pod.metadata.uid ?? '', node: nodeName, site, cluster, requests, limits, assumed: true });
        waiting.get(site)?.delete(queueKey);
        try {
          await bind(pods, scope, pod, nodeName, clock.now(), sidecarVersion);
        } catch (error) {
          accounting.release(queueKey);
          if (error instanceof StatusError && (error.reason === 'NotFound' || error.reason === 'Conflict' || error.reason === 'Invalid')) return undefined;
          throw error;
        }
        events.record(key.cluster, pod, 'Normal', 'Scheduled', `Successfully assigned ${key.cluster.namespace}/${key.name} to ${nodeName}`, COMPONENT);
        return undefined;
      };

      const controller = startControllerLoop({ name: 'scheduler', logger: context.logger, metrics: context.metrics, workers: context.workers ?? options.workers ?? 16, reconcile });
      const waitFor = (site: string, queueKey: string): void => {
        let keys = waiting.get(site);
        if (keys === undefined) waiting.set(site, (keys = new Set()));
        keys.add(queueKey);
      };
      const wake = (site: string): void => {
        const keys = waiting.get(site);
        if (keys === undefined) return;
        waiting.delete(site);
        for (const key of keys) {
          const parsed = parseQueueKey(key);
          if (parsed !== undefined) controller.enqueue(parsed);
        }
      };
      const observe = (key: ObjectKey, pod: KubeObject | undefined): void => {
        const queueKey = formatObjectKey(key);
        const nodeName = pod === undefined ? '' : (specOf<PodSpec>(pod).nodeName ?? '');
        const phase = pod === undefined ? '' : (podStatusOf(pod).phase ?? '');
        if (pod !== undefined && nodeName !== '' && phase !== 'Succeeded' && phase !== 'Failed') {
          const site = pod.metadata.labels?.[POD_SITE_LABEL] ?? '';
          accounting.assign(queueKey, { uid: pod.metadata.uid ?? '', node: nodeName, site, cluster: clusterKeyOf(key.cluster), requests: podRequests(pod), limits: podLimits(pod), assumed: false });
          return;
        }
        const held = accounting.get(queueKey);
        // Our binding is on its way: the informer shows an older, unbound state of the pod.
        if (pod !== undefined && held?.assumed === true && held.uid === pod.metadata.uid) return;
        const released = accounting.release(queueKey);
        if (released !== undefined) wake(released.site);
        if (pod !== undefined && pendingSite(pod) !== undefined) controller.enqueue(key);
        else if (pod === undefined) for (const keys of waiting.values()) keys.delete(queueKey);
      };
      context.on.informer(informers.pods, (event) => observe(event.key, event.type === 'deleted' ? undefined : event.object));
      context.on.siteChange(wake);
      for (const key of informers.pods.keys()) observe(key, informers.pods.get(key.cluster, key.name));
      return controller;
    },
  };
}

/** The site of a pod the scheduler should place, or undefined. */
function pendingSite(pod: KubeObject): string | undefined {
  const spec = specOf<PodSpec>(pod);
  const phase = podStatusOf(pod).phase;
  if ((spec.nodeName ?? '') !== '' || pod.metadata.deletionTimestamp !== undefined || phase === 'Succeeded' || phase === 'Failed') return undefined;
  if ((spec.schedulerName ?? 'default-scheduler') !== 'default-scheduler') return undefined;
  const site = pod.metadata.labels?.[POD_SITE_LABEL];
  return site === undefined || site === '' ? undefined : site;
}

/** The PodScheduled condition set to `next` (kube's UpdatePodCondition: the transition time moves only with the status). */
function withCondition(pod: KubeObject, next: PodCondition, now: Date): PodCondition[] {
  const current = podConditionOf(pod, 'PodScheduled');
  const lastTransitionTime = current !== undefined && current.status === next.status ? current.lastTransitionTime : metav1Time(now);
  const others = (podStatusOf(pod).conditions ?? []).filter((c) => c.type !== 'PodScheduled');
  return [...others, { ...next, lastProbeTime: null, ...(lastTransitionTime === undefined ? {} : { lastTransitionTime }) }];
}

/** The binding write; with `sidecarVersion`, the sidecar's injection in the same write. */
async function bind(pods: GenericStore, scope: RequestScope, pod: KubeObject, nodeName: string, now: Date, sidecarVersion: string | undefined): Promise<void> {
  await pods.update(
    scope,
    pod.metadata.name ?? '',
    (live) => {
      if (live.metadata.uid !== pod.metadata.uid) throw StatusError.conflict(pods.ref, pod.metadata.name ?? '', 'the pod was replaced');
      live.spec = { ...specOf<PodSpec>(live), nodeName };
      live.status = { ...podStatusOf(live), conditions: withCondition(live, { type: 'PodScheduled', status: 'True' }, now) };
      return sidecarVersion === undefined ? live : injectSidecar(live, sidecarVersion);
    },
    { subresource: 'binding' },
  );
}

async function markUnschedulable(pods: GenericStore, scope: RequestScope, pod: KubeObject, message: string, now: Date): Promise<void> {
  const current = podConditionOf(pod, 'PodScheduled');
  if (current?.status === 'False' && current.reason === 'Unschedulable' && current.message === message) return;
  try {
    await pods.update(
      scope,
      pod.metadata.name ?? '',
      (live) => {
        if (live.metadata.uid !== pod.metadata.uid) return live;
        live.status = { ...podStatusOf(live), conditions: withCondition(live, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message }, now) };
        return live;
      },
      { subresource: 'status', retryOnConflict: true },
    );
  } catch (error) {
    if (!(error instanceof StatusError && error.reason === 'NotFound')) throw error;
  }
}
