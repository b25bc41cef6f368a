import type { PodSecurityLevel } from '../../api/pod-security/index.js';
import type { ClusterRef } from '../../apimachinery/cluster-ref.js';
import type { StoredObject } from '../../config/envelope.js';
import { objectKey as configKey } from '../../config/keys.js';
import type { CacheLookup } from '../../store/prefix-cache.js';

/**
 * The Pod Security floor of a virtual cluster: its virtual_k8s object's `pod_security_floor`
 * (`PRIVILEGED` lifts it: pods may then run only on the tenant's customer edges, whose agents
 * allow them), baseline otherwise — also while the object is not in the mirror yet.
 */
export function podSecurityFloor(lookup: (key: string) => CacheLookup, cluster: ClusterRef): PodSecurityLevel {
  const found = lookup(configKey(cluster.tenant, 'virtual_k8s', cluster.namespace, cluster.name));
  if (found.state !== 'present') return 'baseline';
  const spec = (JSON.parse(found.kv.value) as StoredObject).spec as { pod_security_floor?: unknown } | undefined;
  return spec?.pod_security_floor === 'PRIVILEGED' ? 'privileged' : 'baseline';
}
