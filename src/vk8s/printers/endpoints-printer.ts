import type { KubeObject } from '../../apimachinery/object.js';
import { timestampSince } from './human-duration.js';
import { ageColumn, column, nameColumn, type FieldDoc, type TablePrinter } from './table-printer.js';
import type { EndpointsView } from './views.js';

const MAX_SHOWN = 3;

/** Go's `net.JoinHostPort`: IPv6 addresses in brackets. */
const hostPort = (ip: string, port: number): string => (ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`);

/**
 * kube's `formatEndpoints`: ready addresses as `ip:port` for every port of a subset (bare IPs
 * for a subset without ports), the first three joined by commas and ` + N more...` for the
 * rest; `<none>` without subsets, "" when the subsets hold no ready address.
 */
function endpointsText(endpoints: EndpointsView): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return '<none>';
  const all: string[] = [];
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    if (ports.length === 0) {
      for (const address of addresses) all.push(address.ip ?? '');
    } else {
      for (const port of ports) for (const address of addresses) all.push(hostPort(address.ip ?? '', port.port ?? 0));
    }
  }
  const shown = all.slice(0, MAX_SHOWN).join(',');
  return all.length > MAX_SHOWN ? `${shown} + ${all.length - MAX_SHOWN} more...` : shown;
}

/** Endpoints: Name, Endpoints, Age. */
export function endpointsPrinter(doc: FieldDoc): TablePrinter {
  return {
    columns: [nameColumn(doc), column('Endpoints', doc('io.k8s.api.core.v1.Endpoints', 'subsets')), ageColumn(doc)],
    cells(object: KubeObject, now: Date) {
      const endpoints = object as EndpointsView;
      return [endpoints.metadata.name ?? '', endpointsText(endpoints), timestampSince(endpoints.metadata.creationTimestamp, now)];
    },
  };
}
