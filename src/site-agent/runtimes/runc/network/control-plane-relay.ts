import { connect, type Server, type Socket } from 'node:net';
import type { Logger } from '../../../../observability/logger.js';
import type { NetnsSocketBroker } from './netns-broker.js';

/** The port the relay listens on at the site's gateway (the sidecars' `--connect-to`). */
export const RELAY_PORT = 8443;

/**
 * The only way pods reach the platform: a TCP relay on the site gateway, inside the site's
 * network namespace, that forwards each connection to the control plane's address from the
 * agent. TLS stays end to end between the sidecar and the control plane (the sidecar checks
 * the control plane's certificate by name and authenticates with its bootstrap token or its
 * client certificate); the relay sees only ciphertext and never holds a credential.
 */
export class ControlPlaneRelay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly broker: NetnsSocketBroker,
    private readonly target: { readonly host: string; readonly port: number },
    private readonly logger: Logger,
  ) {}

  async listen(gateway: string): Promise<void> {
    const server = await this.broker.listen(gateway, RELAY_PORT);
    server.on('connection', (inside: Socket) => this.relay(inside));
    this.server = server;
  }

  private relay(inside: Socket): void {
    const outside = connect(this.target.port, this.target.host);
    this.sockets.add(inside).add(outside);
    const end = (): void => {
      inside.destroy();
      outside.destroy();
      this.sockets.delete(inside);
      this.sockets.delete(outside);
    };
    inside.on('error', end).on('close', end);
    outside.on('error', (error) => {
      this.logger.debug({ err: error.message }, 'control plane relay: connection to the control plane failed');
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
