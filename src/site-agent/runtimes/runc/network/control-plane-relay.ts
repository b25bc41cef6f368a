import type { Server, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../../../../observability/logger.js';
import type { NetnsSocketBroker } from './netns-broker.js';

/** The port the relay listens on at the site's gateway (the sidecars' `--connect-to`). */
export const RELAY_PORT = 8443;

/**
 * Relayed connections open at once: from one pod address (a sidecar holds at most 64 to the
 * secret API, one for its identity) and from the whole site. Each one is a connection of the
 * agent to the control plane, which caps the agent's address too (`--max-connections-per-address`,
 * 1000 by default): the site's share stays well below it, so one pod cannot take the agent's own.
 */
export interface RelayCaps {
  readonly perPod: number;
  readonly perSite: number;
}

const DEFAULT_RELAY_CAPS: RelayCaps = { perPod: 128, perSite: 512 };

/** Whether one more connection from a pod address holding `fromPod` may be relayed, with `open` relayed in all (pure). */
export function admitRelayed(open: number, fromPod: number, caps: RelayCaps): boolean {
  return open < caps.perSite && fromPod < caps.perPod;
}

/**
 * The only way pods reach the platform: a relay on the site gateway, inside the site's network
 * namespace, that pipes each connection into a connection `dial` opens to the control plane's
 * pod-facing API (the site API's pod relay, authenticated as the agent). That API serves the
 * sidecar's routes alone — the CA, identity issuance and renewal, the secret API — so a pod
 * reaches nothing else of the platform. TLS stays end to end between the sidecar and the
 * control plane (the sidecar checks the control plane's certificate by name and authenticates
 * with its bootstrap token or its client certificate); the relay sees only ciphertext. A
 * connection over the {@link RelayCaps} is closed as soon as it is accepted.
 */
export class ControlPlaneRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Duplex>();
  /** Relayed (or dialling) connections by pod address. */
  private readonly byPod = new Map<string, number>();
  private open = 0;

  constructor(
    private readonly broker: Pick<NetnsSocketBroker, 'listen'>,
    /** Opens a connection to the control plane's pod-facing API. */
    private readonly dial: () => Promise<Duplex>,
    private readonly logger: Logger,
    private readonly caps: RelayCaps = DEFAULT_RELAY_CAPS,
  ) {}

  async listen(gateway: string): Promise<void> {
    const server = await this.broker.listen(gateway, RELAY_PORT);
    server.on('connection', (inside: Socket) => this.accept(inside));
    this.server = server;
  }

  private accept(inside: Socket): void {
    const pod = inside.remoteAddress ?? '';
    const fromPod = this.byPod.get(pod) ?? 0;
    if (!admitRelayed(this.open, fromPod, this.caps)) {
      this.logger.debug({ pod, fromPod, open: this.open }, 'control plane relay: connection over the cap closed');
      inside.destroy();
      return;
    }
    this.open++;
    this.byPod.set(pod, fromPod + 1);
    inside.once('close', () => {
      this.open--;
      const left = (this.byPod.get(pod) ?? 1) - 1;
      if (left === 0) this.byPod.delete(pod);
      else this.byPod.set(pod, left);
    });
    void this.relay(inside);
  }

  private async relay(inside: Socket): Promise<void> {
    this.sockets.add(inside);
    inside.on('error', () => inside.destroy());
    let outside: Duplex;
    try {
      outside = await this.dial();
    } catch (error) {
      this.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'control plane relay: the pod relay connection to the control plane failed');
      inside.destroy();
      this.sockets.delete(inside);
      return;
    }
    if (inside.destroyed || !this.sockets.has(inside)) {
      this.sockets.delete(inside);
      outside.destroy();
      return;
    }
    this.sockets.add(outside);
    const end = (): void => {
      inside.destroy();
      outside.destroy();
      this.sockets.delete(inside);
      this.sockets.delete(outside);
    };
    inside.on('close', end);
    outside.on('error', (error) => {
      this.logger.debug({ err: error.message }, 'control plane relay: the connection to the control plane failed');
      end();
    });
    outside.on('close', end);
    inside.pipe(outside);
    outside.pipe(inside);
  }

  close(): void {
    this.server?.close();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
  }
}
