import type { ClusterRef } from '../apimachinery/cluster-ref.js';
import type { KubeObject } from '../apimachinery/object.js';
import type { NameAttribute } from '../common/der/distinguished-name.js';
import type { WorkloadIdentity } from './identity-extension.js';

/** What a workload's certificates say, derived from the pod object alone (never from a CSR). */
export interface CertificateContents {
  /** Subject attributes in DER order (`L, O, OU, CN`): `CN=<pod>, OU=<namespace>, O=<tenant>, L=<site>` as RFC 4514 prints it. */
  readonly subject: ReadonlyArray<readonly [NameAttribute, string]>;
  /** DNS SANs, deduplicated and sorted. */
  readonly dnsNames: readonly string[];
  /** The URI SAN: `spiffe://<tenant>/ns/<namespace>/sa/<service account>`. */
  readonly uri: string;
  readonly identity: WorkloadIdentity;
}

export interface ContentsInput {
  /** The pod's virtual cluster (its tenant, namespace and vK8s). */
  readonly cluster: ClusterRef;
  /** The site the pod is bound to (checked by the caller). */
  readonly site: string;
  readonly pod: KubeObject;
  /** The Services of the pod's virtual cluster; those whose selector selects the pod name it. */
  readonly services: readonly KubeObject[];
}

/** Pure: does a Service's selector (a map; empty or absent selects nothing) select these labels? */
export function serviceSelects(service: KubeObject, labels: Readonly<Record<string, string>>): boolean {
  const selector = (service['spec'] as { selector?: Record<string, string> | null } | undefined)?.selector;
  if (selector === undefined || selector === null) return false;
  const entries = Object.entries(selector);
  return entries.length > 0 && entries.every(([key, value]) => labels[key] === value);
}

/**
 * Pure: the subject, SANs and workload identity of a pod's certificates. DNS names:
 * `<pod>.<namespace>.<site>`, `<pod>.<namespace>`, and for every Service selecting the pod
 * `<svc>`, `<svc>.<namespace>`, `<svc>.<namespace>.svc`, `<svc>.<namespace>.svc.cluster.local`.
 */
export function certificateContents(input: ContentsInput): CertificateContents {
  const { cluster, site, pod } = input;
  const name = pod.metadata.name ?? '';
  const namespace = cluster.namespace;
  const labels = pod.metadata.labels ?? {};
  const spec = (pod['spec'] ?? {}) as { serviceAccountName?: string; serviceAccount?: string };
  const serviceAccount = spec.serviceAccountName || spec.serviceAccount || 'default';
  const dns = new Set([`${name}.${namespace}.${site}`, `${name}.${namespace}`]);
  for (const service of input.services) {
    if (!serviceSelects(service, labels)) continue;
    const svc = service.metadata.name ?? '';
    for (const suffix of ['', `.${namespace}`, `.${namespace}.svc`, `.${namespace}.svc.cluster.local`]) dns.add(`${svc}${suffix}`);
  }
  return {
    subject: [
      ['L', site],
      ['O', cluster.tenant],
      ['OU', namespace],
      ['CN', name],
    ],
    dnsNames: [...dns].sort(),
    uri: `spiffe://${cluster.tenant}/ns/${namespace}/sa/${serviceAccount}`,
    identity: { v: 1, tenant: cluster.tenant, namespace, vk8s: cluster.name, site, pod: name, podUid: pod.metadata.uid ?? '', serviceAccount, labels: { ...labels } },
  };
}
