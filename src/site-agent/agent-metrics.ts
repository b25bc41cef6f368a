import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, Registry } from 'prom-client';
import type { ListenAddress } from '../common/listen-address.js';
import type { Logger } from '../observability/logger.js';

/** The agent's Prometheus endpoint: its registry, served at `GET /metrics` on its own address. */
export interface AgentMetrics {
  readonly registry: Registry;
  /** `host:port` it listens on (the real port when 0 was asked). */
  readonly address: string;
  close(): Promise<void>;
}

/**
 * Serves the agent's metrics (the process's own, and what its runtime registers: the runc
 * sites' network filter counters) over plain HTTP at `GET /metrics` on `listen`, which the
 * operator chooses (a loopback address keeps it on the machine; pods never reach the agent's
 * network namespace). Anything else is 404.
 */
export async function serveAgentMetrics(listen: ListenAddress, logger: Logger): Promise<AgentMetrics> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (error: unknown) => {
        logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'agent metrics failed');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n');
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const { address: host, port } = server.address() as AddressInfo;
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`;
  logger.info({ address }, 'agent metrics listening');
  return {
    registry,
    address,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
