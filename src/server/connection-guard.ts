import type { Server } from 'node:net';
import type { Socket } from 'node:net';

/** Why a connection was closed as soon as it was accepted. */
export type ConnectionRejection = 'server' | 'address';

export interface ConnectionCaps {
  /** Connections open at once on the server. */
  readonly maxConnections: number;
  /** Connections open at once from one client address. */
  readonly maxConnectionsPerAddress: number;
}

/** Whether one more connection from an address with `fromAddress` open may be kept, with `open` open in all (pure). */
export function admitConnection(open: number, fromAddress: number, caps: ConnectionCaps): ConnectionRejection | undefined {
  if (open >= caps.maxConnections) return 'server';
  if (fromAddress >= caps.maxConnectionsPerAddress) return 'address';
  return undefined;
}

export interface ConnectionGuardEvents {
  /** A connection was admitted (`open` is the count after it) or closed. */
  readonly open: (open: number) => void;
  readonly rejected: (reason: ConnectionRejection) => void;
}

/**
 * Caps the TCP connections of `server`, in all and per client address: a connection over a
 * cap is destroyed the moment it is accepted, before TLS spends anything on it (the client
 * sees its connection reset). Counts are kept per address only while it has connections.
 */
export function guardConnections(server: Server, caps: ConnectionCaps, events: ConnectionGuardEvents): void {
  const perAddress = new Map<string, number>();
  let open = 0;
  // First among the `connection` listeners: TLS wraps the socket in the next one.
  server.prependListener('connection', (socket: Socket) => {
    const address = socket.remoteAddress ?? '';
    const fromAddress = perAddress.get(address) ?? 0;
    const rejection = admitConnection(open, fromAddress, caps);
    if (rejection !== undefined) {
      events.rejected(rejection);
      socket.destroy();
      return;
    }
    open++;
    perAddress.set(address, fromAddress + 1);
    events.open(open);
    socket.once('close', () => {
      open--;
      const left = (perAddress.get(address) ?? 1) - 1;
      if (left === 0) perAddress.delete(address);
      else perAddress.set(address, left);
      events.open(open);
    });
  });
}
