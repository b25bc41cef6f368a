import type { ConfigKind } from './kind.js';
import { schema } from '../spec-schema.js';

/** The values of `spec.pod_security_floor`. */
const POD_SECURITY_FLOORS = ['BASELINE', 'PRIVILEGED'] as const;

/** A virtual Kubernetes cluster; its API lives at /api/vk8s/namespaces/{ns}/{name}. One per namespace. */
export const virtualK8s: ConfigKind = {
  kind: 'virtual_k8s',
  slug: 'config',
  description: 'A virtual Kubernetes cluster placing workloads on the sites of its virtual sites.',
  nameRule: 'dns1035',
  publicCreate: true,
  specSchema: schema.object({
    vsite_refs: schema.arrayOf(schema.ref('A virtual site: default placement.'), { maxItems: 32 }),
    disabled: schema.empty('Services are not isolated (default).'),
    isolated: schema.empty('Services are isolated.'),
    default_flavor_ref: schema.ref('The workload_flavor used when a workload names none.'),
    pod_security_floor: {
      ...schema.enumOf(POD_SECURITY_FLOORS, 'BASELINE'),
      description:
        'The Pod Security level no pod of the cluster may go below, whatever its namespace labels say. BASELINE (default): the Kubernetes Pod Security Standards baseline. PRIVILEGED: pods may ask for what baseline forbids (host namespaces, capabilities, …); they run only on the tenant\'s customer edges: a regional edge refuses them.',
    },
  }),
  oneOfs: [{ members: ['disabled', 'isolated'], default: { member: 'disabled', value: () => ({}) } }],
  refersTo: ['virtual_site', 'workload_flavor'],
  references(spec) {
    const refs = ((spec['vsite_refs'] as unknown[] | undefined) ?? []).map((value, i) => ({
      field: `spec.vsite_refs[${i}]`,
      value,
      targetKind: 'virtual_site',
    }));
    if (spec['default_flavor_ref'] !== undefined) refs.push({ field: 'spec.default_flavor_ref', value: spec['default_flavor_ref'], targetKind: 'workload_flavor' });
    return refs;
  },
};
