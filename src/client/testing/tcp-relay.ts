import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay for tests, like the one a site agent runs on its bridge: every connection to
 * `127.0.0.1:<port>` is piped to `target`. It counts connections, so a test can tell that a
 * request went through it.
 */
export class TcpRelay {
  connections = 0;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(target: { readonly host: string; readonly port: number }): Promise<TcpRelay> {
    let relay: TcpRelay | undefined;
    const server = createServer((inbound) => {
      if (relay !== undefined) relay.connections++;
      const outbound = connect(target.port, target.host);
      for (const socket of [inbound, outbound]) {
        relay?.sockets.add(socket);
        socket.on('close', () => relay?.sockets.delete(socket));
        socket.on('error', () => {
          inbound.destroy();
          outbound.destroy();
        });
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay = new TcpRelay(server, (server.address() as { port: number }).port);
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
