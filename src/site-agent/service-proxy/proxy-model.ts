import type { KubeObject } from '../../apimachinery/object.js';
import { clusterKeyOf } from '../cluster-key.js';
import { http2EnabledOf, proxyTypeOf, sniNamesOf, type ProxyType } from '../../api/service-annotations.js';

/**
 * What a site's Service proxy is made from: the Services placed on the site and their
 * Endpoints, each in its tenant's virtual cluster, and the addresses of each cluster's pods
 * on the site (the proxy answers a cluster's Services only to that cluster's pods). Plain
 * data; {@link proxyServiceOf} and {@link proxyEndpointsOf} read it from API objects.
 */

/**
 * A virtual cluster, as `<tenant>:<namespace>:<vk8s name>` (`clusterKeyOf`: the id can go into
 * HAProxy names and file names, and the site's packet filter knows clusters by it).
 */
export type ClusterId = string;

export function clusterIdOf(tenant: string, namespace: string, name: string): ClusterId {
  return clusterKeyOf({ tenant, namespace, name });
}

export interface ProxyServicePort {
  readonly name: string;
  /** TCP (default), UDP or SCTP; only TCP is proxied. */
  readonly protocol: string;
  readonly port: number;
  /** A Service port's targetPort: a number, or a container port's name (absent: `port`). */
  readonly targetPort?: number | string;
}

export interface ProxyService {
  readonly cluster: ClusterId;
  readonly namespace: string;
  readonly name: string;
  /** The ClusterIP; '' or 'None' for a headless Service (names only, no proxy). */
  readonly clusterIP: string;
  readonly proxyType: ProxyType;
  readonly http2: boolean;
  /** Extra SNI names (`svc.io/sni-names`). */
  readonly sniNames: readonly string[];
  readonly ports: readonly ProxyServicePort[];
  /** The selector (absent or empty: the Service's Endpoints are the user's). */
  readonly selector?: Readonly<Record<string, string>>;
  /** `publishNotReadyAddresses` (or the older tolerate-unready-endpoints annotation): every selected pod is ready. */
  readonly publishNotReadyAddresses?: boolean;
}

interface ProxyEndpointSubset {
  readonly ready: readonly string[];
  readonly notReady: readonly string[];
  readonly ports: readonly ProxyServicePort[];
}

export interface ProxyEndpoints {
  readonly cluster: ClusterId;
  readonly namespace: string;
  readonly name: string;
  /** Only the addresses of pods on this site. */
  readonly subsets: readonly ProxyEndpointSubset[];
}

export interface SiteProxyInput {
  readonly services: readonly ProxyService[];
  readonly endpoints: readonly ProxyEndpoints[];
  /** Each cluster's pod IPs on the site: the sources its Services answer. */
  readonly clusterPods: Readonly<Record<ClusterId, readonly string[]>>;
}

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function portsOf(value: unknown): ProxyServicePort[] {
  return list(value)
    .map(record)
    .filter((port) => typeof port['port'] === 'number')
    .map((port) => {
      const target = port['targetPort'];
      const targetPort = typeof target === 'number' || (typeof target === 'string' && target !== '') ? { targetPort: target } : {};
      return { name: text(port['name']), protocol: text(port['protocol']) || 'TCP', port: port['port'] as number, ...targetPort };
    });
}

const TOLERATE_UNREADY_ANNOTATION = 'service.alpha.kubernetes.io/tolerate-unready-endpoints';

function selectorOf(value: unknown): Record<string, string> | undefined {
  const entries = Object.entries(record(value)).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

/** A Service object of `cluster` as the proxy sees it. */
export function proxyServiceOf(cluster: ClusterId, service: KubeObject): ProxyService {
  const spec = record(service.spec);
  return {
    cluster,
    namespace: service.metadata.namespace ?? 'default',
    name: service.metadata.name ?? '',
    clusterIP: text(spec['clusterIP']),
    proxyType: proxyTypeOf(service),
    http2: http2EnabledOf(service),
    sniNames: sniNamesOf(service),
    ports: portsOf(spec['ports']),
    ...(selectorOf(spec['selector']) === undefined ? {} : { selector: selectorOf(spec['selector']) }),
    publishNotReadyAddresses: spec['publishNotReadyAddresses'] === true || service.metadata.annotations?.[TOLERATE_UNREADY_ANNOTATION] === 'true',
  };
}

/** An endpoint address as the site proxy judges it: pod IPs repeat across sites, so its node tells where it is. */
export interface EndpointAddressView {
  readonly ip: string;
  /** The platform Node (`<site>-<node>`) of the pod; absent in hand-made Endpoints. */
  readonly nodeName?: string;
}

/** An Endpoints object of `cluster`, keeping only the addresses `onSite` accepts (the site's pods). */
export function proxyEndpointsOf(cluster: ClusterId, endpoints: KubeObject, onSite: (address: EndpointAddressView) => boolean): ProxyEndpoints {
  const ips = (addresses: unknown): string[] =>
    list(addresses)
      .map(record)
      .filter((address) => text(address['ip']) !== '' && onSite({ ip: text(address['ip']), ...(text(address['nodeName']) === '' ? {} : { nodeName: text(address['nodeName']) }) }))
      .map((address) => text(address['ip']));
  return {
    cluster,
    namespace: endpoints.metadata.namespace ?? 'default',
    name: endpoints.metadata.name ?? '',
    subsets: list(record(endpoints)['subsets']).map(record).map((subset) => ({ ready: ips(subset['addresses']), notReady: ips(subset['notReadyAddresses']), ports: portsOf(subset['ports']) })),
  };
}
