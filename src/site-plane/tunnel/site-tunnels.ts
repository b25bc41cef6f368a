import { connect, type ClientHttp2Session } from 'node:http2';
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { Logger } from '../../observability/logger.js';
import { keepSessionAlive, TUNNEL_PING_INTERVAL_MS } from '../../site-api/session-keepalive.js';
import { TUNNEL_PATH, TUNNEL_PROTOCOL } from '../../site-api/tunnel-protocol.js';
import type { UpgradeListener } from '../../vk8s/http/pod-stream-upgrades.js';
import { authenticateAgent } from '../agent-authentication.js';
import type { AgentDirectory } from '../agent-directory.js';
import type { TunnelMetrics } from './tunnel-metrics.js';

/** HTTP/2 windows of the control plane's end: what a site may send on a stream, and on all of them, before it is read. */
const STREAM_WINDOW = 1024 * 1024;
const SESSION_WINDOW = 16 * 1024 * 1024;

export interface SiteTunnelsOptions {
  readonly agents: AgentDirectory;
  /** The agent serving a site (its claim's). */
  readonly agentOf: (site: string) => string | undefined;
  readonly logger: Logger;
  readonly pingIntervalMs?: number;
  readonly metrics?: TunnelMetrics;
}

/**
 * The control plane's end of the site tunnels (docs/TUNNEL.md): takes agents' `GET
 * /api/sites/v1/tunnel` upgrades — authenticated by their client certificates like every
 * site API request — and keeps, per agent, the newest tunnel as an HTTP/2 client session on
 * the socket the agent dialled. A newer tunnel of an agent replaces the older one, which is
 * closed gracefully (its streams finish, new ones go to the new tunnel).
 */
export class SiteTunnels {
  private readonly byAgent = new Map<string, ClientHttp2Session>();

  constructor(private readonly options: SiteTunnelsOptions) {}

  /** The tunnel of the agent serving `site`, when it has one. */
  sessionFor(site: string): ClientHttp2Session | undefined {
    const agent = this.options.agentOf(site);
    const session = agent === undefined ? undefined : this.byAgent.get(agent);
    return session === undefined || session.destroyed || session.closed ? undefined : session;
  }

  /** How many agents have a tunnel now. */
  get size(): number {
    return this.byAgent.size;
  }

  /** Takes tunnel upgrades; any other upgrade request goes to `next`. */
  upgradeListener(next: UpgradeListener): UpgradeListener {
    return (request, socket, head) => {
      if (new URL(request.url ?? '/', 'https://localhost').pathname !== TUNNEL_PATH) return next(request, socket, head);
      socket.on('error', (error) => this.options.logger.debug({ err: error }, 'tunnel socket error'));
      void this.accept(request, socket, head);
    };
  }

  /**
   * Sends GOAWAY on every tunnel (the server is stopping): no new stream goes to it, the
   * streams in progress finish, then it closes; its agent dials again (another server).
   */
  goAwayAll(): void {
    for (const session of this.byAgent.values()) session.close();
  }

  /** Ends every tunnel at once (the server has stopped). */
  closeAll(): void {
    for (const session of this.byAgent.values()) session.destroy();
    this.byAgent.clear();
    this.options.metrics?.tunnels.set(0);
  }

  private async accept(request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    let agent: string;
    try {
      if (request.method !== 'GET') throw StatusError.methodNotAllowed(request.method ?? '', { resource: 'tunnel', group: 'sites.edgeplane.io' });
      if (request.headers.upgrade?.toLowerCase() !== TUNNEL_PROTOCOL) throw StatusError.badRequest(`the tunnel needs "Upgrade: ${TUNNEL_PROTOCOL}"`);
      agent = (await authenticateAgent(this.options.agents, socket)).name;
    } catch (error) {
      this.options.metrics?.upgrades.inc({ result: 'refused' });
      const status = error instanceof StatusError ? error : StatusError.internal('an unexpected error; it has been logged');
      if (!(error instanceof StatusError)) this.options.logger.error({ err: error }, 'tunnel upgrade failed');
      const body = JSON.stringify(status.toStatus());
      socket.end(`HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
      return;
    }
    // HTTP/2 takes the socket's native stream over: the 101 must have left it first.
    await new Promise<void>((resolve) => socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: ${TUNNEL_PROTOCOL}\r\n\r\n`, () => resolve()));
    if (socket.destroyed) return;
    this.options.metrics?.upgrades.inc({ result: 'accepted' });
    if (head.length > 0) socket.unshift(head);
    const session = connect(`http://site-agent.${agent}`, { createConnection: () => socket, settings: { initialWindowSize: STREAM_WINDOW, enablePush: false } });
    session.once('connect', () => session.setLocalWindowSize(SESSION_WINDOW));
    session.on('error', (error) => this.options.logger.debug({ err: error, agent }, 'tunnel session error'));
    keepSessionAlive(session, this.options.pingIntervalMs ?? TUNNEL_PING_INTERVAL_MS);
    const previous = this.byAgent.get(agent);
    this.byAgent.set(agent, session);
    this.options.metrics?.tunnels.set(this.byAgent.size);
    previous?.close();
    this.options.logger.info({ agent, replaced: previous !== undefined }, 'site tunnel open');
    session.once('close', () => {
      if (this.byAgent.get(agent) !== session) return;
      this.byAgent.delete(agent);
      this.options.metrics?.tunnels.set(this.byAgent.size);
      this.options.logger.info({ agent }, 'site tunnel closed');
    });
  }
}
