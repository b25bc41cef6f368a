import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay for tests, like the one a site agent runs on its bridge: every connection to
 * `127.0.0.1:<port>` is piped to `target`. It counts connections, so a test can tell that a
 * request went through it.
 */
export class TcpRelay {
  connections = 0;
  port = 0;
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;

  private constructor(target: { readonly host: string; readonly port: number }) {
    this.server = createServer((inbound) => {
      this.connections++;
      const outbound = connect(target.port, target.host);
      for (const socket of [inbound, outbound]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          inbound.destroy();
          outbound.destroy();
        });
      }
      inbound.pipe(outbound).pipe(inbound);
    });
  }

  static async start(target: { readonly host: string; readonly port: number }): Promise<TcpRelay> {
    const relay = new TcpRelay(target);
    await new Promise<void>((resolve) => relay.server.listen(0, '127.0.0.1', resolve));
    relay.port = (relay.server.address() as { port: number }).port;
    return relay;
  }

  /** `127.0.0.1:<port>`, as `--connect-to` takes it. */
  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
