import type { KubeObject } from '../apimachinery/object.js';
import type { PodStreams } from '../site-api/pod-streams.js';
import type { ClusterRef, PodEventReport, PodRef, PodStatusItem } from '../site-api/site-api-types.js';

/** Where a runtime's reports go (the agent batches them to the site API). */
export interface PodRuntimeSink {
  status(key: string, item: PodStatusItem): void;
  /** The runtime stopped a pod marked for deletion: the control plane may remove it. */
  terminated(key: string, ref: PodRef): void;
  /** An Event about a pod (best effort: sent in the next batch, dropped when the control plane cannot take it). */
  event?(report: PodEventReport): void;
}

/**
 * What runs a site's pods. The agent feeds it the pod watch; it reports statuses and
 * terminations to its sink. Keys are {@link podKeyOf}'s.
 */
export interface PodRuntime {
  /** A pod bound to a node of the agent's sites was added or changed (watch ADDED / MODIFIED). */
  apply(cluster: ClusterRef, pod: KubeObject): void;
  /** The pod left the control plane (DELETED, or a report found it gone); with `uid`, only that incarnation. */
  remove(key: string, uid?: string): void;
  keys(): IterableIterator<string>;
  /** The pod watch delivered a full list: pods it did not bring are not the site's (a runtime may clean up what they left). */
  listed?(): void;
  /**
   * The pod watch replayed the site's persisted pod list (the control plane does not answer):
   * every pod the site ran is applied. A runtime may serve from that picture (tell its Service
   * data plane its pods), never remove what it does not name: that waits for {@link listed}.
   */
  replayed?(): void;
  readonly size: number;
  /** Stops following the pods (a runtime may keep them running for the next agent); resolves once what it ran for itself has stopped. */
  close(): void | Promise<void>;
  /** Instead of close: stops and removes every pod and what the runtime made on the machine. */
  destroy?(): Promise<void>;
  /** Logs, exec, attach and port-forward of its pods, served through the agent's tunnel. */
  readonly streams?: PodStreams;
}
