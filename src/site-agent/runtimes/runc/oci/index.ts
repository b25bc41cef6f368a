/** The OCI runtime specification a runc site writes (config.json, 1.0.2), pure. */
export { containerOciSpec, type BindMount, type ContainerLaunch } from './container-spec.js';
export type { OciCapabilities, OciLinuxResources, OciSeccomp } from './oci-types.js';
export { RUNTIME_DEFAULT_SECCOMP } from './seccomp/runtime-default-seccomp.js';
export { goArch, parseSeccompTemplate, resolveSeccomp, type SeccompHost, type SeccompTemplate } from './seccomp/seccomp-template.js';
