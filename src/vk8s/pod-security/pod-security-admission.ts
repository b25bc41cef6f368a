import { evaluatePodSecurity, formatLevelVersion, forbiddenDetail, namespacePolicy, withFloor, type PodSecurityLevel } from '../../api/pod-security/index.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { AdmissionHook } from '../http/admission-hook.js';
import { podTemplateOf } from './pod-templates.js';

export interface PodSecurityAdmissionSource {
  /** The labels of the cluster's namespace (its `pod-security.kubernetes.io/*` policy). */
  namespaceLabels(cluster: ClusterRef): Readonly<Record<string, string>>;
  /** The level below which the cluster's pods may never go (its virtual_k8s `pod_security_floor`; baseline by default). */
  floor(cluster: ClusterRef): PodSecurityLevel;
}

/**
 * Pod Security admission for the virtual clusters (kube's PodSecurity plugin, with the
 * platform's floor): the pod template of every write of a workload is evaluated against the
 * namespace's `enforce` level — never below the cluster's floor — and refused with 403
 * `<resource> "<name>" is forbidden: violates PodSecurity "<level>:<version>": …`; its `warn`
 * level's findings come back as warnings (`would violate PodSecurity …`). Unlike kube, which
 * refuses only pods and warns about templates, the template is refused: users never write pods
 * here (controllers make them from templates), so the template is where a refusal can be seen.
 * An update that leaves the template as it was is not refused again (kube checks pod updates
 * only when their containers or images change).
 */
export function createPodSecurityAdmission(source: PodSecurityAdmissionSource): AdmissionHook {
  return ({ cluster, resource, object, old }) => {
    const pod = podTemplateOf(object);
    if (pod === undefined) return [];
    const { policy } = namespacePolicy(source.namespaceLabels(cluster));
    const effective = withFloor(policy, source.floor(cluster));
    const unchanged = old !== undefined && JSON.stringify(podTemplateOf(old)) === JSON.stringify(pod);
    const enforced = evaluatePodSecurity(effective.enforce, pod);
    if (enforced.length > 0 && !unchanged) {
      const name = object.metadata.name ?? object.metadata.generateName ?? '';
      throw StatusError.forbidden({ resource: resource.resource, group: resource.group }, name, `violates PodSecurity "${formatLevelVersion(effective.enforce)}": ${forbiddenDetail(enforced)}`);
    }
    const warned = evaluatePodSecurity(effective.warn, pod);
    return warned.length === 0 ? [] : [`would violate PodSecurity "${formatLevelVersion(effective.warn)}": ${forbiddenDetail(warned)}`];
  };
}
