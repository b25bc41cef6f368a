import type { ClusterRef } from '../../../../apimachinery/cluster-ref.js';
import type { Logger } from '../../../../observability/logger.js';
import { clusterKeyOf } from '../../../cluster-key.js';
import { NftCommand, type IpCommand, type Program } from '../../../host/index.js';
import { RELAY_PORT } from './control-plane-relay.js';
import { formatAddress, formatCidr, gatewayAddress, parseAddress, type Ipv4Cidr } from './ipv4-cidr.js';
import { hostVethName, podMacAddress, podNamespaceName } from './pod-interface.js';
import { SiteFirewall } from './site-firewall.js';

/** The bridge inside a site's namespace (the namespace is the site's alone, so the name is fixed). */
const SITE_BRIDGE = 'site0';
/** A pod's end of its veth pair, inside the pod's namespace. */
const POD_INTERFACE = 'eth0';

export interface PodAttachment {
  readonly netns: string;
  /** `/var/run/netns/<name>`, for an OCI spec's network namespace. */
  readonly netnsPath: string;
  readonly address: string;
}

/** Whose a pod's network is: its virtual cluster (the pods it may reach) and its name (the filter's counters and logs). */
export interface PodOwner {
  readonly cluster: ClusterRef;
  readonly namespace: string;
  readonly name: string;
}

export interface SiteNetworkOptions {
  readonly ip: IpCommand;
  /** nftables' nft and iproute2's ip path it runs in the site's namespace. */
  readonly nft: Program;
  readonly netns: string;
  readonly cidr: Ipv4Cidr;
  /** Where the site's packet filter keeps what it is made of (see {@link SiteFirewall}). */
  readonly filterStateFile: string;
  readonly logger: Logger;
}

/**
 * A site's network: its own namespace with a bridge holding the gateway address of the pod
 * CIDR, and for each pod a namespace of its own joined to the bridge by a veth pair, its
 * address from the CIDR, a MAC that follows from that address, and a default route through
 * the gateway. Nothing is routed out of the site's namespace (its forwarding stays off), and
 * the site's packet filter ({@link filter}) lets each pod's port send only from the pod's own
 * MAC and IP, and only to its own virtual cluster's pods, name server and Services and to the
 * relay on the gateway.
 */
export class SiteNetwork {
  readonly filter: SiteFirewall;
  private readonly ip: IpCommand;
  readonly netns: string;
  readonly cidr: Ipv4Cidr;

  constructor(options: SiteNetworkOptions) {
    this.ip = options.ip;
    this.netns = options.netns;
    this.cidr = options.cidr;
    this.filter = new SiteFirewall({
      nft: new NftCommand(options.nft, options.ip.path),
      netns: options.netns,
      bridge: SITE_BRIDGE,
      gateway: this.gateway,
      relayPort: RELAY_PORT,
      stateFile: options.filterStateFile,
      ports: () => this.ports(),
      logger: options.logger,
    });
  }

  get gateway(): string {
    return formatAddress(gatewayAddress(this.cidr));
  }

  /**
   * Creates the namespace and bridge, or finds them as an earlier start left them, then
   * applies the site's packet filter (replacing what an earlier agent left): from then on a
   * port no pod was admitted on sends nothing.
   */
  async ensure(): Promise<void> {
    const existing = await this.ip.namespaces();
    if (!existing.has(this.netns)) await this.ip.run(['netns', 'add', this.netns]);
    const links = await this.ip.run(['-n', this.netns, '-o', 'addr', 'show', 'dev', SITE_BRIDGE]).catch(() => undefined);
    const address = `${this.gateway}/${this.cidr.prefixLength}`;
    if (links === undefined || !links.includes(` ${address} `)) {
      await this.ip.batch(
        [
          'link set lo up',
          ...(links === undefined ? [`link add ${SITE_BRIDGE} type bridge`] : []),
          `addr flush dev ${SITE_BRIDGE}`,
          `addr add ${address} dev ${SITE_BRIDGE}`,
          `link set ${SITE_BRIDGE} up`,
        ],
        this.netns,
      );
    }
    await this.filter.start();
  }

  /**
   * Gives a pod its namespace, veth and `address`, with the MAC that follows from the address
   * (a fresh start: a namespace left by an earlier attempt is replaced), and admits it to the
   * site's filter before it resolves. The pod's interface makes no IPv6 link-local address:
   * the site carries IPv4 and ARP only. With `namespacePid`, the namespace is that process's own
   * (a user-namespaced sandbox's, made in the pod's user namespace so that its containers may
   * join it and mount their sysfs), named by `ip netns attach`; otherwise a new one (`ip netns add`).
   */
  async attach(podUid: string, address: number, owner: PodOwner, namespacePid?: number): Promise<PodAttachment> {
    const netns = podNamespaceName(this.netns, podUid);
    if ((await this.ip.namespaces()).has(netns)) await this.ip.run(['netns', 'delete', netns]);
    await this.ip.run(namespacePid === undefined ? ['netns', 'add', netns] : ['netns', 'attach', netns, String(namespacePid)]);
    const veth = hostVethName(netns);
    const mac = podMacAddress(address);
    try {
      await this.ip.batch([`link add ${veth} type veth peer name ${POD_INTERFACE} address ${mac} netns ${netns}`, `link set ${veth} master ${SITE_BRIDGE}`, `link set ${veth} up`], this.netns);
      await this.ip.batch(
        [
          'link set lo up',
          `link set ${POD_INTERFACE} addrgenmode none`,
          `addr add ${formatAddress(address)}/${this.cidr.prefixLength} dev ${POD_INTERFACE}`,
          `link set ${POD_INTERFACE} up`,
          `route add default via ${this.gateway} dev ${POD_INTERFACE}`,
        ],
        netns,
      );
      await this.admit(podUid, address, owner);
    } catch (error) {
      await this.detach(podUid).catch(() => undefined);
      throw error;
    }
    return { netns, netnsPath: `/var/run/netns/${netns}`, address: formatAddress(address) };
  }

  /**
   * A running pod an earlier agent attached (adoption): admitted to the filter again if the
   * filter does not hold it as it is (an agent from before the filter, a lost state file); its
   * MAC is set to the one that follows from its address first, since the filter allows no other.
   */
  async adopt(podUid: string, address: string, owner: PodOwner): Promise<void> {
    const value = parseAddress(address);
    if (value === undefined) throw new Error(`pod ${podUid} has no IPv4 address ("${address}")`);
    if (this.filter.holds(podUid, address)) return;
    await this.ip.batch([`link set ${POD_INTERFACE} address ${podMacAddress(value)}`], podNamespaceName(this.netns, podUid));
    await this.admit(podUid, value, owner);
  }

  /** Removes a pod's namespace (its veth pair goes with it), then its place in the filter. */
  async detach(podUid: string): Promise<void> {
    const netns = podNamespaceName(this.netns, podUid);
    if ((await this.ip.namespaces()).has(netns)) await this.ip.run(['netns', 'delete', netns]);
    await this.filter.release(podUid);
  }

  /** Removes the site's namespace (its bridge and filter go with it); pods must be detached first. */
  async remove(): Promise<void> {
    if ((await this.ip.namespaces()).has(this.netns)) await this.ip.run(['netns', 'delete', this.netns]);
  }

  describe(): string {
    return `${this.netns} ${formatCidr(this.cidr)} via ${this.gateway}`;
  }

  private admit(podUid: string, address: number, owner: PodOwner): Promise<void> {
    const veth = hostVethName(podNamespaceName(this.netns, podUid));
    const { namespace, name } = owner;
    const cluster = clusterKeyOf(owner.cluster);
    return this.filter.admit({ uid: podUid, veth, mac: podMacAddress(address), ip: formatAddress(address), cluster, namespace, name });
  }

  /** The bridge's ports now (the pods' veths). */
  private async ports(): Promise<Set<string>> {
    const shown = await this.ip.run(['-n', this.netns, '-o', 'link', 'show', 'master', SITE_BRIDGE]);
    return new Set([...shown.matchAll(/^\d+: ([^:@\s]+)/gm)].map((m) => m[1] as string));
  }
}
