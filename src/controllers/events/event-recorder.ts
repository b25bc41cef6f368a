import type { ClusterRef } from '../../registry/strategy.js';
import type { KubeObject } from '../../vk8s/object.js';

export interface EventRecorder {
  /** Records a core/v1 Event in `cluster` about `object` (kube's aggregation: same object+reason+message → count++).
   *  Never throws (failures are logged); fire-and-forget. */
  record(cluster: ClusterRef, object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, component?: string): void;
}
