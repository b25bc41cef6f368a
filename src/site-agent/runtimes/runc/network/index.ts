/**
 * The network of a runc site: its namespace, bridge and pod CIDR (claimed on the machine), the
 * pods' veths and address leases, the site's packet filter (no forged addresses, virtual
 * clusters apart), the socket broker that listens and dials inside a namespace, and the relay
 * to the control plane on the site gateway.
 */
export { SiteNetwork, type PodOwner } from './site-network.js';
export { podNamespaceName, siteNamespaceName } from './pod-interface.js';
export type { SiteFirewall } from './site-firewall.js';
export type { ClusterDestination } from './firewall-model.js';
export { AddressLeases } from './address-leases.js';
export { NetnsSocketBroker, NetnsSocketError } from './netns-broker.js';
export { ControlPlaneRelay, RELAY_PORT } from './control-plane-relay.js';
export { claimSiteCidr, releaseSiteCidr } from './site-cidr-claims.js';
export { cidrContains, parseCidr, type Ipv4Cidr } from './ipv4-cidr.js';
