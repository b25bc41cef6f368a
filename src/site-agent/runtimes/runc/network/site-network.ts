import { createHash } from 'node:crypto';
import { formatAddress, formatCidr, gatewayAddress, type Ipv4Cidr } from './ipv4-cidr.js';
import type { IpCommand } from '../../../host/index.js';

/** The bridge inside a site's namespace (the namespace is the site's alone, so the name is fixed). */
const BRIDGE = 'site0';
/** A pod's end of its veth pair, inside the pod's namespace. */
const POD_INTERFACE = 'eth0';

const shortHash = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The host-wide name of a site's network namespace: `ep-s-` and a hash of the agent's home and the site. */
export function siteNamespaceName(home: string, site: string): string {
  return `ep-s-${shortHash(`${home}\0${site}`, 12)}`;
}

/** The host-wide name of a pod's network namespace, from its site's namespace and its uid. */
export function podNamespaceName(siteNamespace: string, podUid: string): string {
  return `ep-p-${shortHash(`${siteNamespace}\0${podUid}`, 16)}`;
}

/** The site-side end of a pod's veth pair (names are per namespace and at most 15 bytes). */
function hostVethName(podNamespace: string): string {
  return `veth${podNamespace.slice(-10)}`;
}

export interface PodAttachment {
  readonly netns: string;
  /** `/var/run/netns/<name>`, for an OCI spec's network namespace. */
  readonly netnsPath: string;
  readonly address: string;
}

/**
 * A site's network: its own namespace with a bridge holding the gateway address of the pod
 * CIDR, and for each pod a namespace of its own joined to the bridge by a veth pair, its
 * address from the CIDR and a default route through the gateway. Nothing is routed out of
 * the site's namespace (its forwarding stays off): pods reach each other and the addresses
 * the agent serves on the gateway, nothing else.
 */
export class SiteNetwork {
  constructor(
    private readonly ip: IpCommand,
    readonly netns: string,
    readonly cidr: Ipv4Cidr,
  ) {}

  get gateway(): string {
    return formatAddress(gatewayAddress(this.cidr));
  }

  /** Creates the namespace and bridge, or finds them as an earlier start left them. */
  async ensure(): Promise<void> {
    const existing = await this.ip.namespaces();
    if (!existing.has(this.netns)) await this.ip.run(['netns', 'add', this.netns]);
    const links = await this.ip.run(['-n', this.netns, '-o', 'addr', 'show', 'dev', BRIDGE]).catch(() => undefined);
    const address = `${this.gateway}/${this.cidr.prefixLength}`;
    if (links !== undefined && links.includes(` ${address} `)) return;
    await this.ip.batch(
      [
        'link set lo up',
        ...(links === undefined ? [`link add ${BRIDGE} type bridge`] : []),
        `addr flush dev ${BRIDGE}`,
        `addr add ${address} dev ${BRIDGE}`,
        `link set ${BRIDGE} up`,
      ],
      this.netns,
    );
  }

  /**
   * Gives a pod its namespace, veth and `address` (a fresh start: a namespace left by an earlier
   * attempt is replaced). With `ownerPid`, the namespace is that process's own (a user-namespaced
   * sandbox's, made in the pod's user namespace so that its containers may join it and mount
   * their sysfs), named by `ip netns attach`; otherwise a new one (`ip netns add`).
   */
  async attach(podUid: string, address: number, ownerPid?: number): Promise<PodAttachment> {
    const netns = podNamespaceName(this.netns, podUid);
    if ((await this.ip.namespaces()).has(netns)) await this.ip.run(['netns', 'delete', netns]);
    await this.ip.run(ownerPid === undefined ? ['netns', 'add', netns] : ['netns', 'attach', netns, String(ownerPid)]);
    const veth = hostVethName(netns);
    try {
      await this.ip.batch([`link add ${veth} type veth peer name ${POD_INTERFACE} netns ${netns}`, `link set ${veth} master ${BRIDGE}`, `link set ${veth} up`], this.netns);
      await this.ip.batch(
        [
          'link set lo up',
          `addr add ${formatAddress(address)}/${this.cidr.prefixLength} dev ${POD_INTERFACE}`,
          `link set ${POD_INTERFACE} up`,
          `route add default via ${this.gateway} dev ${POD_INTERFACE}`,
        ],
        netns,
      );
    } catch (error) {
      await this.ip.run(['netns', 'delete', netns]).catch(() => undefined);
      throw error;
    }
    return { netns, netnsPath: `/var/run/netns/${netns}`, address: formatAddress(address) };
  }

  /** Removes a pod's namespace; its veth pair goes with it. */
  async detach(podUid: string): Promise<void> {
    const netns = podNamespaceName(this.netns, podUid);
    if ((await this.ip.namespaces()).has(netns)) await this.ip.run(['netns', 'delete', netns]);
  }

  /** Removes the site's namespace (its bridge goes with it); pods must be detached first. */
  async remove(): Promise<void> {
    if ((await this.ip.namespaces()).has(this.netns)) await this.ip.run(['netns', 'delete', this.netns]);
  }

  describe(): string {
    return `${this.netns} ${formatCidr(this.cidr)} via ${this.gateway}`;
  }
}
