/**
 * The runc runtime's public face: what the agent, the CLI, the embedded default, tests and
 * benchmarks may use. Everything else in runtimes/runc/ is the runtime's own (the services
 * behind each folder's index.ts; docs/RUNTIME.md has the map).
 */
export { startRuncRuntime, type RuncAgentOptions } from './start-runc-runtime.js';
export { findRuntimePrograms, findUmoci, servicePrograms, type RuntimeProgramPaths, type RuntimePrograms } from './runtime-programs.js';
export { runcStateRoot, siteCgroupParent } from './runc-site.js';
export { ImageStore, siteImageStoreDir, unmountAllUnder } from './images/index.js';
export { podNamespaceName, releaseSiteCidr, siteNamespaceName } from './network/index.js';
export { releaseUserRangeClaims } from './sandbox/index.js';
export { podContainerId } from './containers/index.js';
export { SIDECAR_NODE_FLAGS } from './sidecar/index.js';

/**
 * The runtime's own pieces, for what measures or tests them on their own: the raw runc
 * baseline of `npm run bench -- runtime`, and a sidecar run in a bare container.
 */
export { containerCapabilities, containerFiles, containerResources, makeContainerFolders, RuncContainers, type ContainerFiles } from './containers/index.js';
export { containerOciSpec, type BindMount } from './oci/index.js';
export { hostImagePlan, inspectHost, prepareRoot } from './images/index.js';
export { NetnsSocketBroker } from './network/index.js';
