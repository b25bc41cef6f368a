/**
 * Pod sandboxes of a runc site (the CRI's RunPodSandbox / RemovePodSandbox): the pod's network
 * namespace and address, the infra container holding its IPC and UTS namespaces, and the
 * pod's /etc/hosts and /etc/resolv.conf.
 */
export { PodSandboxes, type PodSandbox } from './pod-sandbox.js';
export { podResolvConfFile } from './pod-dns-files.js';
export { SysctlForbiddenError } from './pod-sysctls.js';
export { ignoredFieldsMessage, ignoredPodFields } from './ignored-fields.js';
