import type { Toleration } from '../../api/pod-spec-types.js';
import type { KubeObject } from '../../apimachinery/object.js';
import { UNREACHABLE_TAINT_KEY } from './taints.js';

/**
 * The workload annotation that opts its pods into eviction from an offline site (OpenYurt's
 * `node.openyurt.io/autonomy-duration`, per workload): `"<seconds>"`, how long after its site
 * went offline a pod is deleted. Without it (the default, on customer and regional edges
 * alike) pods of an offline site are never evicted.
 */
export const OFFLINE_EVICTION_ANNOTATION = 'svc.io/offline-eviction-seconds';

/** The most the annotation may say (kube's tolerationSeconds is an int64; a year is plenty). */
const MAX_SECONDS = 365 * 24 * 3600;

/** The annotation's seconds, or a problem with its value (a whole number of seconds, 0 to a year). Pure. */
export function parseOfflineEviction(value: string): { readonly seconds: number } | { readonly problem: string } {
  if (!/^[0-9]{1,8}$/.test(value.trim()) || Number(value) > MAX_SECONDS) return { problem: `must be a whole number of seconds from 0 to ${MAX_SECONDS}` };
  return { seconds: Number(value) };
}

/**
 * The toleration the annotation of `workload` stands for: `node.kubernetes.io/unreachable`
 * Exists NoExecute for its seconds; undefined without a valid annotation.
 */
export function offlineEvictionToleration(workload: KubeObject | undefined): Toleration | undefined {
  const value = workload?.metadata.annotations?.[OFFLINE_EVICTION_ANNOTATION];
  const parsed = value === undefined ? undefined : parseOfflineEviction(value);
  if (parsed === undefined || 'problem' in parsed) return undefined;
  return { key: UNREACHABLE_TAINT_KEY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: parsed.seconds };
}
