import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { KUBE_DEFAULTS, orDefault } from './kube-defaults.js';
import { formatLabels } from './label-selector-text.js';
import { ageColumn, column, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { ServiceView } from './views.js';

const SPEC = 'io.k8s.api.core.v1.ServiceSpec';

/** Load-balancer ingress IPs (else hostnames), de-duplicated and sorted, joined by commas (wide: never clipped). */
function loadBalancerText(service: ServiceView): string {
  const entries = new Set<string>();
  for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
    if ((ingress.ip ?? '') !== '') entries.add(ingress.ip ?? '');
    else if ((ingress.hostname ?? '') !== '') entries.add(ingress.hostname ?? '');
  }
  return [...entries].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).join(',');
}

/**
 * kube's `getServiceExternalIP`: ClusterIP and NodePort show `spec.externalIPs` or `<none>`;
 * LoadBalancer shows the balancer's addresses followed by `spec.externalIPs`, or `<pending>`;
 * ExternalName shows the external name; any other type `<unknown>`.
 */
function externalIP(service: ServiceView, type: string): string {
  const externalIPs = service.spec?.externalIPs ?? [];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const balancer = loadBalancerText(service);
      if (externalIPs.length > 0) return [...(balancer === '' ? [] : balancer.split(',')), ...externalIPs].join(',');
      return balancer === '' ? '<pending>' : balancer;
    }
    case 'ExternalName':
      return service.spec?.externalName ?? '';
    default:
      return '<unknown>';
  }
}

/** `80/TCP`, `80:30080/TCP` with a node port, joined by commas; `<none>` without ports. */
function portsText(service: ServiceView): string {
  const text = (service.spec?.ports ?? [])
    .map((p) => {
      const protocol = orDefault(p.protocol, KUBE_DEFAULTS.protocol);
      const port = p.port ?? 0;
      return (p.nodePort ?? 0) > 0 ? `${port}:${p.nodePort ?? 0}/${protocol}` : `${port}/${protocol}`;
    })
    .join(',');
  return text === '' ? '<none>' : text;
}

/**
 * Services: Name, Type, Cluster-IP (`<none>` when empty), External-IP, Port(s), Age, and wide
 * Selector (`k=v,…` or `<none>`). Absent `type` and port `protocol` read as kube's defaults.
 */
export function servicePrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [
      nameColumn(doc),
      column('Type', doc(SPEC, 'type')),
      column('Cluster-IP', doc(SPEC, 'clusterIP')),
      column('External-IP', doc(SPEC, 'externalIPs')),
      column('Port(s)', doc(SPEC, 'ports')),
      ageColumn(doc),
      column('Selector', doc(SPEC, 'selector'), { priority: 1 }),
    ],
    cells(object: KubeObject, now: Date) {
      const service = object as ServiceView;
      const type = orDefault(service.spec?.type, KUBE_DEFAULTS.serviceType);
      const clusterIP = service.spec?.clusterIP ?? '';
      return [
        service.metadata.name ?? '',
        type,
        clusterIP === '' ? '<none>' : clusterIP,
        externalIP(service, type),
        portsText(service),
        timestampSince(service.metadata.creationTimestamp, now),
        formatLabels(service.spec?.selector),
      ];
    },
  };
}
