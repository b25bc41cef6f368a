/**
 * Pod volumes of a runc site, as kubelet does them: planned (configMap, secret, downwardAPI,
 * projected, emptyDir, persistentVolumeClaim), set up in the pod's folder (tmpfs for secrets),
 * bound into containers (subPath included), torn down with the pod; the folders of claims
 * that are gone swept.
 */
export { PodVolumes, VolumeMountError } from './pod-volumes.js';
export { VolumeSetup } from './volume-setup.js';
export { MountCommand } from './mount-command.js';
export { VolumeError } from './volume-error.js';
export { ClaimFolderSweeper } from './claim-folder-sweep.js';
