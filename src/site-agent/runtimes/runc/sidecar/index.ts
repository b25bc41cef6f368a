/**
 * The workload sidecar the platform injects into a runc site's pods: its launch (`edgeplane
 * sidecar` from the agent's installation, its token on a private tmpfs, root with CAP_CHOWN at
 * most), the owner of the pod's identity files, and its readiness from its state file.
 */
export { SidecarLauncher, type SidecarInstallation } from './sidecar-start.js';
export { isSidecar, SIDECAR_CONTAINER, SIDECAR_NODE_FLAGS, sidecarPodSpec, sidecarRunDir } from './sidecar-launch.js';
