import { createHash } from 'node:crypto';
import { DROP_REASONS, type ClusterDestination, type DropReason, type FirewallPod, type SiteFirewallSpec } from './firewall-model.js';

/**
 * A site's packet filter as nftables objects (pure): two tables named {@link FIREWALL_TABLE}
 * in the site's network namespace.
 *
 * - **bridge**: every frame a pod sends enters the site bridge through its own port (the
 *   site-side end of its veth). `prerouting` — once per frame, before the bridge learns or
 *   forwards anything and before the gateway's own stack sees it — sends each port to its pod's
 *   chain `spoof_<veth>`: the frame must come from the pod's MAC; an ARP packet must be
 *   Ethernet/IPv4 and name the pod's MAC and IP as its sender; an IPv4 packet must come from
 *   the pod's IP; anything else (IPv6, other protocols) is dropped. A port that is no known pod's
 *   sends nothing. `forward` (pod to pod) lets a frame out only through a port of the sender's
 *   own virtual cluster (`peers_<veth>`, the cluster's ports in set `cluster_<id>`), so another
 *   cluster's pods are not reachable, not even by ARP.
 * - **inet** `input`: what reaches the gateway's own addresses (the relay, the clusters' name
 *   servers, the Service frontends on the ClusterIPs) from the bridge. Replies to what the site
 *   opened (probes, hooks, the proxy's backend connections) pass as established; a new
 *   connection from a pod (known by its source address, which the bridge table vouches for)
 *   may open the relay port and what its cluster has in `services_<id>`; nothing else.
 *
 * Every drop is counted in a named counter `<veth>_<reason>` (`firewall-model.ts`' reasons), so
 * counts stay with the pod across rule updates; broadcast frames another cluster's ports do not
 * get are dropped uncounted (ARP requests go to every port).
 */

export const FIREWALL_TABLE = 'edgeplane';

export type FirewallFamily = 'bridge' | 'inet';

interface NftChain {
  readonly name: string;
  /** A base chain's hook, priority and policy (`type filter hook prerouting priority -200; policy drop;`); none for a regular chain. */
  readonly base?: string;
  readonly rules: readonly string[];
}

interface NftSet {
  readonly name: string;
  readonly type: string;
  readonly elements: readonly string[];
}

export interface NftTable {
  readonly family: FirewallFamily;
  readonly counters: readonly string[];
  readonly sets: readonly NftSet[];
  readonly chains: readonly NftChain[];
}

/** The counter of a pod's drops for a reason. */
function counterName(veth: string, reason: DropReason): string {
  return `${veth}_${reason}`;
}

/** A short stable name for a virtual cluster's objects (cluster ids hold characters nft names do not). */
function clusterKey(cluster: string): string {
  return createHash('sha256').update(cluster).digest('hex').slice(0, 12);
}

const quote = (name: string): string => `"${name}"`;
const count = (veth: string, reason: DropReason): string => `counter name ${quote(counterName(veth, reason))} drop`;
const byVeth = (a: FirewallPod, b: FirewallPod): number => (a.veth < b.veth ? -1 : a.veth > b.veth ? 1 : 0);

/** The pods the filter can hold: one per port and per address (the model keeps them so; a duplicate gets no rules, so it sends nothing). */
function distinctPods(pods: readonly FirewallPod[]): FirewallPod[] {
  const veths = new Set<string>();
  const ips = new Set<string>();
  const kept: FirewallPod[] = [];
  for (const pod of [...pods].sort(byVeth)) {
    if (veths.has(pod.veth) || ips.has(pod.ip)) continue;
    veths.add(pod.veth);
    ips.add(pod.ip);
    kept.push(pod);
  }
  return kept;
}

function spoofChain(pod: FirewallPod): NftChain {
  const { veth, mac, ip } = pod;
  const arp = count(veth, 'arp_spoofed');
  return {
    name: `spoof_${veth}`,
    rules: [
      `ether saddr != ${mac} ${count(veth, 'mac_spoofed')}`,
      `ether type arp arp htype != 1 ${arp}`,
      `ether type arp arp ptype != ip ${arp}`,
      `ether type arp arp hlen != 6 ${arp}`,
      `ether type arp arp plen != 4 ${arp}`,
      `ether type arp arp saddr ether != ${mac} ${arp}`,
      `ether type arp arp saddr ip != ${ip} ${arp}`,
      'ether type arp accept',
      `ether type ip ip saddr != ${ip} ${count(veth, 'ip_spoofed')}`,
      'ether type ip accept',
      `ether type ip6 ${count(veth, 'ipv6')}`,
      count(veth, 'other_protocol'),
    ],
  };
}

function bridgeTable(pods: readonly FirewallPod[]): NftTable {
  const clusters = [...new Set(pods.map((p) => p.cluster))].sort();
  const vmap = (prefix: string): string[] => (pods.length === 0 ? [] : [`iifname vmap { ${pods.map((p) => `${quote(p.veth)} : jump ${prefix}_${p.veth}`).join(', ')} }`]);
  return {
    family: 'bridge',
    counters: ['unknown_port', ...pods.flatMap((p) => DROP_REASONS.map((reason) => counterName(p.veth, reason)))],
    sets: clusters.map((cluster) => ({ name: `cluster_${clusterKey(cluster)}`, type: 'ifname', elements: pods.filter((p) => p.cluster === cluster).map((p) => quote(p.veth)) })),
    chains: [
      { name: 'prerouting', base: 'type filter hook prerouting priority -200; policy drop;', rules: [...vmap('spoof'), 'counter name "unknown_port" drop'] },
      { name: 'forward', base: 'type filter hook forward priority 0; policy drop;', rules: vmap('peers') },
      ...pods.map(spoofChain),
      ...pods.map((p) => ({
        name: `peers_${p.veth}`,
        rules: [`oifname @cluster_${clusterKey(p.cluster)} accept`, 'meta pkttype { broadcast, multicast } drop', count(p.veth, 'isolated')],
      })),
    ],
  };
}

const destinationElement = (d: ClusterDestination): string => `${d.address} . ${d.protocol} . ${d.port}`;

function inetTable(spec: SiteFirewallSpec, pods: readonly FirewallPod[]): NftTable {
  const clusters = [...new Set(pods.map((p) => p.cluster))].sort();
  const sets = clusters.map((cluster) => ({
    name: `services_${clusterKey(cluster)}`,
    type: 'ipv4_addr . inet_proto . inet_service',
    elements: [...new Set((spec.destinations[cluster] ?? []).map(destinationElement))].sort(),
  }));
  return {
    family: 'inet',
    counters: ['unknown_source', ...pods.map((p) => counterName(p.veth, 'isolated'))],
    sets,
    chains: [
      {
        name: 'input',
        base: 'type filter hook input priority 0; policy accept;',
        rules: [
          `iifname != ${quote(spec.bridge)} accept`,
          'ct state established,related accept',
          ...(pods.length === 0 ? [] : [`ip saddr vmap { ${pods.map((p) => `${p.ip} : jump reach_${p.veth}`).join(', ')} }`]),
          'counter name "unknown_source" drop',
        ],
      },
      ...pods.map((p) => ({
        name: `reach_${p.veth}`,
        rules: [
          `ip daddr . meta l4proto . th dport @services_${clusterKey(p.cluster)} accept`,
          `ip daddr ${spec.gateway} tcp dport ${spec.relayPort} accept`,
          count(p.veth, 'isolated'),
        ],
      })),
    ],
  };
}

/** The site's two tables for `spec`: equal specs give equal tables (everything sorted). */
export function siteFirewallTables(spec: SiteFirewallSpec): readonly [NftTable, NftTable] {
  const pods = distinctPods(spec.pods);
  return [bridgeTable(pods), inetTable(spec, pods)];
}
