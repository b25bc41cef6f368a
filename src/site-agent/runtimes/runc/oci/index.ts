/** The OCI runtime specification a runc site writes (config.json, 1.0.2), pure. */
export { containerOciSpec, type BindMount, type ContainerLaunch } from './container-spec.js';
export type { OciCapabilities, OciLinuxResources } from './oci-types.js';
