import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { Counter, Gauge, type Registry } from 'prom-client';
import { StatusError } from '../apimachinery/errors/status-error.js';
import type { Logger } from '../observability/logger.js';
import { POD_RELAY_PATH, POD_RELAY_PROTOCOL } from '../site-api/pod-relay-protocol.js';
import type { UpgradeListener } from '../vk8s/http/pod-stream-upgrades.js';
import { refuseUpgrade } from '../vk8s/streams/raw-answer.js';
import { authenticateAgent } from './agent-authentication.js';
import type { AgentDirectory } from './agent-directory.js';

/** What the pod relay reports at /metrics. */
interface PodRelayMetrics {
  /** Relay upgrade requests: `accepted`, or `refused` (not an agent, a bad request). */
  readonly upgrades: Counter<'result'>;
  /** Relayed pod connections open now. */
  readonly open: Gauge;
}

function podRelayMetrics(registry: Registry): PodRelayMetrics {
  return {
    upgrades: new Counter({ name: 'edgeplane_pod_relay_upgrades_total', help: 'Pod relay upgrade requests from site agents, by result (accepted, refused).', labelNames: ['result'], registers: [registry] }),
    open: new Gauge({ name: 'edgeplane_pod_relay_connections_open', help: 'Pod connections relayed by site agents into the pod-facing API, open now.', registers: [registry] }),
  };
}

export interface PodRelayOptions {
  readonly agents: AgentDirectory;
  readonly logger: Logger;
  readonly metrics?: Registry;
}

/**
 * The control plane's end of the pod relay (`src/site-api/pod-relay-protocol.ts`): takes the
 * agents' `GET /api/sites/v1/pod-relay` upgrades — authenticated by their client certificates
 * like every site API request (401, 403) — answers `101`, and hands the connection, which from
 * then on carries a pod's own TLS, to `serve` (the pod-facing API). Nothing but an agent's
 * authenticated upgrade reaches that API, and a pod's connection reaches nothing else.
 */
export class PodRelayUpgrades {
  private readonly relayed = new Set<Duplex>();
  private readonly metrics: PodRelayMetrics | undefined;

  constructor(private readonly options: PodRelayOptions) {
    this.metrics = options.metrics === undefined ? undefined : podRelayMetrics(options.metrics);
  }

  /** Takes pod relay upgrades into `serve`; any other upgrade request goes to `next`. */
  upgradeListener(serve: (socket: Duplex) => void, next: UpgradeListener): UpgradeListener {
    return (request, socket, head) => {
      if (new URL(request.url ?? '/', 'https://localhost').pathname !== POD_RELAY_PATH) return next(request, socket, head);
      socket.on('error', (error) => this.options.logger.debug({ err: error }, 'pod relay socket error'));
      void this.accept(request, socket, head, serve);
    };
  }

  /** Ends every relayed connection (the server is stopping). */
  closeAll(): void {
    for (const socket of this.relayed) socket.destroy();
    this.relayed.clear();
    this.metrics?.open.set(0);
  }

  private async accept(request: IncomingMessage, socket: Duplex, head: Buffer, serve: (socket: Duplex) => void): Promise<void> {
    try {
      if (request.method !== 'GET') throw StatusError.methodNotAllowed(request.method ?? '', { resource: 'pod-relay', group: 'sites.edgeplane.io' });
      if (request.headers.upgrade?.toLowerCase() !== POD_RELAY_PROTOCOL) throw StatusError.badRequest(`the pod relay needs "Upgrade: ${POD_RELAY_PROTOCOL}"`);
      await authenticateAgent(this.options.agents, socket);
    } catch (error) {
      this.metrics?.upgrades.inc({ result: 'refused' });
      if (!(error instanceof StatusError)) this.options.logger.error({ err: error }, 'pod relay upgrade failed');
      refuseUpgrade(socket, error instanceof StatusError ? error : StatusError.internal('an unexpected error; it has been logged'));
      return;
    }
    if (socket.destroyed) return;
    this.metrics?.upgrades.inc({ result: 'accepted' });
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${POD_RELAY_PROTOCOL}\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    this.relayed.add(socket);
    this.metrics?.open.set(this.relayed.size);
    socket.once('close', () => {
      this.relayed.delete(socket);
      this.metrics?.open.set(this.relayed.size);
    });
    serve(socket);
  }
}
