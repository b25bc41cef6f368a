import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { GenericStore } from '../../registry/generic-store.js';
import { POD_SITE_LABEL } from '../../site-api/site-model.js';
import type { ControllerStarter } from '../manager/controller-context.js';
import { podSpecOf } from '../runtime/pod-state.js';
import { startControllerLoop } from '../runtime/controller-loop.js';
import { taintsOf } from '../controller-kit/taints.js';
import { offlineEvictionToleration, OFFLINE_EVICTION_ANNOTATION } from '../controller-kit/offline-eviction.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { Toleration } from '../../api/pod-spec-types.js';
import { choosesEviction, planEviction } from './eviction-plan.js';
import { podsOfWorkload, workloadOfPod } from './pod-workload.js';

/** kube's NoExecuteTaintManager event (reason, component). */
const EVICTION_REASON = 'TaintManagerEviction';
const TAINT_COMPONENT = 'taint-controller';
const FIELD_MANAGER = 'taint-controller';

/** A site's NoExecute taints as one string, to tell when they change. */
function noExecuteTaints(nodes: readonly KubeObject[]): string {
  return nodes.map((n) => `${n.metadata.name ?? ''}:${taintsOf(n).filter((t) => t.effect === 'NoExecute').map((t) => `${t.key}=${t.value ?? ''}@${t.timeAdded ?? ''}`).join(',')}`).join(';');
}

/**
 * The taint eviction controller (kube's NoExecuteTaintManager, opt-in): a pod bound to a node
 * of an offline site (NoExecute `node.kubernetes.io/unreachable`) that tolerates the taint for
 * `tolerationSeconds` — its own toleration, or the one the `svc.io/offline-eviction-seconds`
 * annotation of its workload adds — is deleted that long after the taint's `timeAdded`, with
 * kube's Normal event `TaintManagerEviction` "Marking for deletion Pod <ns>/<name>" from
 * `taint-controller` (see {@link planEviction}; other pods are never evicted). Time counts from
 * the taint or from the start of this leadership term, whichever is later. Pods are looked
 * at when they change and when their site's NoExecute taints change; a pod whose time has not
 * come is looked at again then.
 */
export function taintEvictionController(options: { readonly workers?: number } = {}): ControllerStarter {
  return {
    name: 'taint-eviction',
    start: (context) => {
      const { informers, sites, events, clock } = context;
      const pods = context.storage.storeFor({ group: '', resource: 'pods' }) as GenericStore;
      const observingSince = clock.now();
      const nodeOf = (pod: KubeObject): KubeObject | undefined => {
        const nodeName = podSpecOf(pod).nodeName ?? '';
        const site = pod.metadata.labels?.[POD_SITE_LABEL] ?? '';
        return nodeName === '' ? undefined : sites.nodesOf(site).find((n) => n.metadata.name === nodeName);
      };
      const controller = startControllerLoop({
        name: 'taint-eviction',
        logger: context.logger,
        metrics: context.metrics,
        workers: context.workers ?? options.workers ?? 2,
        reconcile: async (key) => {
          const pod = informers.pods.get(key.cluster, key.name);
          if (pod === undefined) return undefined;
          const plan = planEviction(pod, nodeOf(pod), clock.now(), annotated(key.cluster, pod), observingSince);
          if (plan.action === 'wait') return { requeueAfterMs: plan.afterMs };
          if (plan.action === 'keep') return undefined;
          try {
            await pods.delete({ cluster: key.cluster, dryRun: false, fieldManager: FIELD_MANAGER }, key.name, { preconditions: { uid: pod.metadata.uid ?? '' } });
          } catch (error) {
            if (error instanceof StatusError && (error.reason === 'NotFound' || error.reason === 'Conflict')) return undefined;
            throw error;
          }
          events.record(key.cluster, pod, 'Normal', EVICTION_REASON, `Marking for deletion Pod ${pod.metadata.namespace ?? key.cluster.namespace}/${key.name}`, TAINT_COMPONENT);
          context.logger.info({ controller: 'taint-eviction', pod: key.name, node: podSpecOf(pod).nodeName }, 'pod of an offline site evicted as its toleration asks');
          return undefined;
        },
      });
      const annotated = (cluster: ClusterRef, pod: KubeObject): Toleration | undefined => offlineEvictionToleration(workloadOfPod(informers, cluster, pod));
      const taintsBySite = new Map<string, string>();
      context.on.informer(informers.pods, (event) => {
        if (event.type !== 'deleted' && (podSpecOf(event.object).nodeName ?? '') !== '' && choosesEviction(event.object, annotated(event.key.cluster, event.object))) controller.enqueue(event.key);
      });
      // A workload's annotation set or changed: its pods are looked at again.
      for (const workloads of [informers.deployments, informers.replicaSets, informers.statefulSets, informers.jobs]) {
        context.on.informer(workloads, (event) => {
          if (event.type !== 'updated' || event.old.metadata.annotations?.[OFFLINE_EVICTION_ANNOTATION] === event.object.metadata.annotations?.[OFFLINE_EVICTION_ANNOTATION]) return;
          for (const pod of podsOfWorkload(informers, event.object)) controller.enqueue({ cluster: event.key.cluster, name: pod.metadata.name ?? '' });
        });
      }
      context.on.siteChange((site) => {
        const taints = noExecuteTaints(sites.nodesOf(site));
        if ((taintsBySite.get(site) ?? '') === taints) return;
        taintsBySite.set(site, taints);
        for (const key of informers.pods.keys()) {
          const pod = informers.pods.get(key.cluster, key.name);
          if (pod !== undefined && pod.metadata.labels?.[POD_SITE_LABEL] === site && choosesEviction(pod, annotated(key.cluster, pod))) controller.enqueue(key);
        }
      });
      for (const key of informers.pods.keys()) {
        const pod = informers.pods.get(key.cluster, key.name);
        if (pod !== undefined && choosesEviction(pod, annotated(key.cluster, pod))) controller.enqueue(key);
      }
      return controller;
    },
  };
}
