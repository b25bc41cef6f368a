import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { KubeObject } from '../../apimachinery/object.js';
import type { PodWatchEvent } from '../../site-api/site-api-types.js';
import { podKeyOf } from '../pod-key.js';

/** The pods bound to the agent's sites as the pod watch last delivered them, and the version to resume at. */
export interface PodListSnapshot {
  readonly resourceVersion: string;
  readonly pods: readonly { readonly cluster: ClusterRef; readonly pod: KubeObject }[];
}

/**
 * The pod list the pod watch adds up to, as an informer's store does (pure): ADDED and
 * MODIFIED put a pod, DELETED removes it, every event moves the resourceVersion. A watch
 * opened without a version is a relist: it begins a list, and its first BOOKMARK ends it,
 * dropping the pods the list did not bring back. While a list is under way there is no
 * snapshot (half a list is not a state the control plane was ever in).
 */
export class PodListMirror {
  private readonly pods = new Map<string, { readonly cluster: ClusterRef; readonly pod: KubeObject }>();
  private resourceVersion: string | undefined;
  /** The pods seen since a relist began, until its first BOOKMARK. */
  private listed: Set<string> | undefined;

  constructor(restored?: PodListSnapshot) {
    if (restored === undefined) return;
    this.resourceVersion = restored.resourceVersion;
    for (const entry of restored.pods) this.pods.set(podKeyOf(entry.cluster, entry.pod.metadata.name ?? ''), entry);
  }

  /** A watch opened without a resourceVersion: a full list follows. */
  beginList(): void {
    this.listed = new Set();
  }

  /** Applies one event of the watch; returns whether the snapshot changed. */
  apply(event: PodWatchEvent): boolean {
    if (event.type === 'ERROR') return false;
    const version = event.object.metadata?.resourceVersion;
    const moved = version !== undefined && version !== '' && version !== this.resourceVersion;
    if (moved) this.resourceVersion = version;
    if (event.type === 'BOOKMARK') {
      if (this.listed === undefined) return moved;
      for (const key of this.pods.keys()) if (!this.listed.has(key)) this.pods.delete(key);
      this.listed = undefined;
      return true;
    }
    if (event.cluster === undefined) return moved;
    const key = podKeyOf(event.cluster, event.object.metadata.name ?? '');
    if (event.type === 'DELETED') {
      this.listed?.delete(key);
      return this.pods.delete(key) || moved;
    }
    this.listed?.add(key);
    this.pods.set(key, { cluster: event.cluster, pod: event.object });
    return true;
  }

  /** The list and its version; undefined while a relist is under way or before anything was listed. */
  snapshot(): PodListSnapshot | undefined {
    if (this.listed !== undefined || this.resourceVersion === undefined) return undefined;
    return { resourceVersion: this.resourceVersion, pods: [...this.pods.values()] };
  }
}
