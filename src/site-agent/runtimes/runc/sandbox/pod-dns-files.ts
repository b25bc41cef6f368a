import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PodSpec } from '../../../../api/pod-spec-types.js';
import type { ClusterRef } from '../../../../apimachinery/cluster-ref.js';
import { podResolvConf } from './pod-dns.js';

/** Where a pod's resolv.conf is kept (bound read-only at /etc/resolv.conf in its containers). */
export function podResolvConfFile(podDir: string): string {
  return join(podDir, 'etc-resolv.conf');
}

/** Writes the pod's resolv.conf, asking the site's Service data plane for its cluster's name server (which is running when it answers). */
export async function writePodResolvConf(podDir: string, spec: PodSpec, cluster: ClusterRef, nameserverFor: (cluster: ClusterRef) => Promise<string>): Promise<void> {
  const nameserver = await nameserverFor(cluster);
  await writeFile(podResolvConfFile(podDir), podResolvConf(spec, cluster.namespace, nameserver), { mode: 0o644 });
}
