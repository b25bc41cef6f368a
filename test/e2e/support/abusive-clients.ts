import { connect, type TLSSocket } from 'node:tls';

/** A raw TLS connection to the server, with what it received and when it was closed. */
export interface RawConnection {
  readonly socket: TLSSocket;
  /** performance.now() when the TLS handshake completed. */
  readonly openedAt: number;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves to performance.now() when the connection closed (either side). */
  readonly closed: Promise<number>;
}

export interface ConnectOptions {
  /** The client address to connect from: any of 127.0.0.0/8 is this host, so one machine plays many clients. */
  readonly localAddress?: string;
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

/**
 * Opens a TLS connection to `url`'s host and port; undefined when the server closed it before
 * the handshake completed (as it does beyond its connection caps).
 */
export function openConnection(url: string, options: ConnectOptions = {}): Promise<RawConnection | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname,
      port: Number(port),
      servername: 'localhost',
      ...(options.localAddress === undefined ? {} : { localAddress: options.localAddress }),
      ...(options.ca === undefined ? { rejectUnauthorized: false } : { ca: options.ca }),
      ...(options.cert === undefined ? {} : { cert: options.cert, key: options.key }),
    });
    let text = '';
    let handshaken = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    const closed = new Promise<number>((done) => socket.once('close', () => done(performance.now())));
    socket.once('secureConnect', () => {
      handshaken = true;
      resolve({ socket, openedAt: performance.now(), received: () => text, closed });
    });
    void closed.then(() => {
      if (!handshaken) resolve(undefined);
    });
  });
}

/**
 * Slowloris: starts a request and then sends one more header byte every `intervalMs`, never
 * finishing the headers, until the server closes the connection.
 */
export function sendHeadersSlowly(connection: RawConnection, intervalMs: number): void {
  const { socket } = connection;
  socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
  const timer = setInterval(() => {
    if (socket.writable) socket.write('a');
  }, intervalMs);
  void connection.closed.then(() => clearInterval(timer));
}

/** The status line's code of what the server sent (e.g. 408), or undefined when it sent nothing. */
export function statusOf(received: string): number | undefined {
  const match = /^HTTP\/1\.1 (\d{3})/.exec(received);
  return match === null ? undefined : Number(match[1]);
}
