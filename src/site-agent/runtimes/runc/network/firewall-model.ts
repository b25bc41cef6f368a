/**
 * What a site's packet filter is made from (plain data): the site's bridge and gateway, its
 * pods (each one's bridge port, MAC, IP and virtual cluster), and what each virtual cluster's
 * pods may reach on the site's own addresses (its name server, its Services' frontends).
 */

/** A pod as the site's filter knows it. */
export interface FirewallPod {
  readonly uid: string;
  /** Its port on the site bridge: the site-side end of its veth pair. */
  readonly veth: string;
  /** The only MAC and IPv4 address its port may send from. */
  readonly mac: string;
  readonly ip: string;
  /** Its virtual cluster, `<tenant>:<namespace>:<name>`: it reaches that cluster's pods and destinations only. */
  readonly cluster: string;
  /** Its Kubernetes namespace and name, for the counters' labels and logs. */
  readonly namespace: string;
  readonly name: string;
}

/** An address, protocol and port on the site gateway's side (a ClusterIP frontend, a name server) that a cluster's pods may open. */
export interface ClusterDestination {
  readonly address: string;
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
}

export interface SiteFirewallSpec {
  /** The site bridge (the gateway's interface; every other port is a pod's). */
  readonly bridge: string;
  readonly gateway: string;
  /** The control plane relay's port on the gateway: every pod may open it. */
  readonly relayPort: number;
  readonly pods: readonly FirewallPod[];
  /** By virtual cluster, what its pods may open on the site's own addresses besides the relay. */
  readonly destinations: Readonly<Record<string, readonly ClusterDestination[]>>;
}

/**
 * Why a packet was dropped (a counter each per pod): a frame from another MAC, an ARP packet
 * claiming another sender, an IPv4 packet from another source, IPv6 (the site carries IPv4 and
 * ARP only), any other protocol, and a destination outside the pod's virtual cluster.
 */
export const DROP_REASONS = ['mac_spoofed', 'arp_spoofed', 'ip_spoofed', 'ipv6', 'other_protocol', 'isolated'] as const;
export type DropReason = (typeof DROP_REASONS)[number];

/** The site-wide counters: a frame from a bridge port that is no known pod's, an IPv4 packet to the gateway from no known pod. */
export const SITE_DROP_REASONS = ['unknown_port', 'unknown_source'] as const;
