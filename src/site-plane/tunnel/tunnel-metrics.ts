import { Counter, Gauge, type Registry } from 'prom-client';

/** What the site tunnels report at /metrics. */
export interface TunnelMetrics {
  /** Site agents with a tunnel to this server. */
  readonly tunnels: Gauge;
  /** Tunnel upgrade requests: `accepted` or `refused` (not an agent, bad request). */
  readonly upgrades: Counter<'result'>;
  /** Streams asked of sites by kind (`logs`, `exec`, `attach`, `portforward`): `established`, `refused` by the site, `no_tunnel`, `lost`. */
  readonly streams: Counter<'kind' | 'result'>;
  /** Streams open now, by kind. */
  readonly open: Gauge<'kind'>;
}

export function tunnelMetrics(registry: Registry): TunnelMetrics {
  return {
    tunnels: new Gauge({ name: 'edgeplane_site_tunnels', help: 'Site agents with a tunnel to this server.', registers: [registry] }),
    upgrades: new Counter({ name: 'edgeplane_site_tunnel_upgrades_total', help: 'Tunnel upgrade requests from site agents, by result (accepted, refused).', labelNames: ['result'], registers: [registry] }),
    streams: new Counter({ name: 'edgeplane_site_tunnel_streams_total', help: 'Pod streams asked of sites through their tunnels, by kind and result (established, refused, no_tunnel, lost).', labelNames: ['kind', 'result'], registers: [registry] }),
    open: new Gauge({ name: 'edgeplane_site_tunnel_streams_open', help: 'Pod streams open through site tunnels, by kind.', labelNames: ['kind'], registers: [registry] }),
  };
}
