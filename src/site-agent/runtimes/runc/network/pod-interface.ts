import { createHash } from 'node:crypto';

/**
 * The names and addresses of a site's network that follow from a site and a pod, so that any
 * agent (a restarted one too) finds them again without asking the pod: namespaces, the
 * site-side veth, the pod's MAC.
 */

const shortHash = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The host-wide name of a site's network namespace: `ep-s-` and a hash of the agent's home and the site. */
export function siteNamespaceName(home: string, site: string): string {
  return `ep-s-${shortHash(`${home}\0${site}`, 12)}`;
}

/** The host-wide name of a pod's network namespace, from its site's namespace and its uid. */
export function podNamespaceName(siteNamespace: string, podUid: string): string {
  return `ep-p-${shortHash(`${siteNamespace}\0${podUid}`, 16)}`;
}

/** The site-side end of a pod's veth pair, from the pod's namespace (names are per namespace and at most 15 bytes): `veth` and 10 hex digits. */
export function hostVethName(podNamespace: string): string {
  return `veth${podNamespace.slice(-10)}`;
}

/**
 * The MAC of a pod's interface, from its IPv4 address as the CNI bridge plugin makes it:
 * `0a:58` (locally administered, unicast) then the address's four bytes. A pod's address is
 * unique on its site, so is its MAC; the site's filter lets the pod send from this MAC only.
 */
export function podMacAddress(address: number): string {
  const bytes = [0x0a, 0x58, address >>> 24, (address >>> 16) & 255, (address >>> 8) & 255, address & 255];
  return bytes.map((b) => b.toString(16).padStart(2, '0')).join(':');
}
