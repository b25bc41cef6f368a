/**
 * The containers of a runc site (the CRI's runtime service for containers): runc under conmon,
 * each instance's OCI bundle from the pod's spec (process, user, capabilities, resources,
 * namespaces), its environment, stdio and log rotation.
 */
export { SiteContainers } from './site-containers.js';
export { RuncContainers, ContainerCommandError, type ContainerFiles } from './runc-containers.js';
export { containerFiles, instanceDir, makeContainerFolders, podContainerId, type ContainerInstance } from './container-instance.js';
export { containerCapabilities } from './capabilities.js';
export { containerResources } from './linux-resources.js';
export { expandVariables } from './variable-expansion.js';
export { containerEnvironment, ContainerConfigError, type DownwardFacts } from './container-env.js';
export { containerStdio, NO_STDIO, type ContainerStdio } from './container-stdio.js';
export { containerUid } from './workload-launch.js';
export { conmonLogSizeMax, criLogFiles, DEFAULT_LOG_ROTATION, rotateContainerLogIfNeeded, type LogRotationPolicy } from './container-log-rotation.js';
export { oomScoreFloor } from './oom-score-floor.js';
export { seccompChoice, seccompFilter } from './seccomp-choice.js';
