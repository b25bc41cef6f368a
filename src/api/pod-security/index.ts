/**
 * The Kubernetes Pod Security Standards (privileged, baseline, restricted) as pure checks,
 * with kube's Pod Security Admission's words: the vK8s API admits pods and pod templates
 * through them, and regional-edge sites refuse a pod that breaks baseline however it came.
 */
export { evaluatePodSecurity, forbiddenDetail, forbiddenReason } from './pss-evaluate.js';
export { formatLevelVersion, type LevelVersion, type PodSecurityLevel } from './pss-level.js';
export { namespacePolicy, withFloor } from './pss-namespace-policy.js';
export { CONTAINER_SECCOMP_ANNOTATION, POD_SECCOMP_ANNOTATION, type PodSecurityView } from './pss-pod.js';
export { safeSysctls } from './pss-baseline-checks.js';
