/**
 * The defaults kube-apiserver 1.17 writes into objects before storing them (`SetDefaults_*`)
 * for the fields the printers show. A real cluster never prints these fields unset, so the
 * printers read an absent (or, for strings, empty) field as its default; once the strategies
 * apply the defaults themselves these become no-ops.
 */
export const KUBE_DEFAULTS = {
  /** Deployment, ReplicaSet, StatefulSet `spec.replicas`. */
  replicas: 1,
  /** Service `spec.type`. */
  serviceType: 'ClusterIP',
  /** Service port `protocol`. */
  protocol: 'TCP',
  /** CronJob `spec.suspend` (batch/v1beta1). */
  suspend: false,
  /** Secret `type`. */
  secretType: 'Opaque',
  /** Namespace `status.phase`. */
  namespacePhase: 'Active',
  /** PersistentVolume `spec.persistentVolumeReclaimPolicy`. */
  reclaimPolicy: 'Retain',
  /** PersistentVolume and PersistentVolumeClaim `status.phase`. */
  volumePhase: 'Pending',
  /** PersistentVolume and PersistentVolumeClaim `spec.volumeMode` (BlockVolume is on by default in 1.17). */
  volumeMode: 'Filesystem',
} as const;

/** A string field as kube stores it: the default when absent or empty. */
export function orDefault(value: string | undefined | null, fallback: string): string {
  return value === undefined || value === null || value === '' ? fallback : value;
}
