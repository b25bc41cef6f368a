/**
 * kubelet's eviction manager for local ephemeral storage on a runc site: each pod's folders
 * measured by a budgeted, resumable du-like walk (the I/O), the eviction decided by kubelet's
 * rules (pure: emptyDir sizeLimit, limits.ephemeral-storage of the pod and of each container,
 * the site's cap under kubelet's disk-pressure ranking), the pod evicted through its worker.
 */
export { DEFAULT_STORAGE_CHECK_MS, DEFAULT_WALK_ENTRIES, StorageMonitor, type StoragePod } from './storage-monitor.js';
