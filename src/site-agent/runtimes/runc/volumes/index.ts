/**
 * Pod volumes of a runc site, as kubelet does them: planned (configMap, secret, downwardAPI,
 * projected, emptyDir, persistentVolumeClaim), set up in the pod's folder (tmpfs for secrets),
 * bound into containers (a subPath opened without following symlinks and bound by its
 * descriptor), torn down with the pod; the folders of claims that are gone swept.
 */
export { PodVolumes, VolumeMountError } from './pod-volumes.js';
export { MountCommand } from './mount-command.js';
export { VolumeError } from './volume-error.js';
export { ClaimFolderSweeper } from './claim-folder-sweep.js';
