/**
 * The Service data plane of a runc site (docs/SERVICES.md): the placed Services and Endpoints
 * followed from the site API, planned into the site's HAProxy (ClusterIPs, proxy types, ready
 * endpoints of this site) and one dnsmasq per virtual cluster, on addresses of the site
 * namespace's loopback.
 */
export { startServicePlane, type ServicePlane } from './service-plane.js';
export type { SitePod } from './site-service-proxy.js';
