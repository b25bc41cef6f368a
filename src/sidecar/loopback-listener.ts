import { createServer, type RequestListener, type Server } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { SIDECAR_PORT } from '../api/sidecar-injection.js';
import { type ListenAddress, parseListenAddress, urlFor } from '../common/listen-address.js';

/** An address to bind; an optional one is skipped when the host has no such address (no IPv6 loopback). */
export interface LoopbackAddress extends ListenAddress {
  readonly optional: boolean;
}

/** `127.0.0.1:8070`, and `[::1]:8070` when the host has an IPv6 loopback (the injection's {@link SIDECAR_PORT}). */
export const DEFAULT_LOOPBACK_ADDRESSES: readonly LoopbackAddress[] = [
  { host: '127.0.0.1', port: SIDECAR_PORT, optional: false },
  { host: '::1', port: SIDECAR_PORT, optional: true },
];

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

function isLoopbackAddress(host: string): boolean {
  const family = isIP(host);
  return family === 4 ? LOOPBACK.check(host, 'ipv4') : family === 6 ? LOOPBACK.check(host, 'ipv6') : false;
}

/**
 * Parses a `--listen` value and refuses anything but a loopback IP: the sidecar hands out
 * private keys without asking who calls, so only containers of its own pod may reach it.
 */
export function parseLoopbackAddress(value: string): LoopbackAddress {
  const address = parseListenAddress(value);
  if (!isLoopbackAddress(address.host)) {
    throw new Error(`--listen ${value}: the sidecar serves private keys without authentication, so it listens on loopback addresses only (127.0.0.1:${SIDECAR_PORT} or [::1]:${SIDECAR_PORT}), where only containers of its pod reach it`);
  }
  return { ...address, optional: false };
}

export interface LoopbackServers {
  /** `http://127.0.0.1:8070`, `http://[::1]:8070`: the addresses actually bound. */
  readonly urls: readonly string[];
  /** Optional addresses the host does not have, with the reason. */
  readonly skipped: readonly string[];
  close(): Promise<void>;
}

function listen(server: Server, address: ListenAddress): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(address.port, address.host, () => {
      server.off('error', onError);
      const bound = server.address();
      resolve(typeof bound === 'object' && bound !== null ? bound.port : address.port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Serves `listener` on each address, one node HTTP server per address. Port 0 after the first
 * address means "the port the first one got", so `127.0.0.1:0` and `[::1]:0` share a port.
 * An optional address the host does not have (EADDRNOTAVAIL, EAFNOSUPPORT) is skipped; any other
 * failure (a port in use, say) closes what was bound and rejects.
 */
export async function serveOnLoopback(listener: RequestListener, addresses: readonly LoopbackAddress[]): Promise<LoopbackServers> {
  for (const a of addresses) if (!isLoopbackAddress(a.host)) throw new Error(`${a.host} is not a loopback address; the sidecar listens on loopback only`);
  const servers: Server[] = [];
  const urls: string[] = [];
  const skipped: string[] = [];
  let firstPort: number | undefined;
  try {
    for (const address of addresses) {
      const server = createServer(listener);
      const port = address.port === 0 && firstPort !== undefined ? firstPort : address.port;
      try {
        const bound = await listen(server, { host: address.host, port });
        firstPort ??= bound;
        servers.push(server);
        urls.push(urlFor({ host: address.host, port: bound }, 'http'));
      } catch (error) {
        const { code, message } = error as NodeJS.ErrnoException;
        const url = urlFor({ host: address.host, port }, 'http');
        if (!address.optional || (code !== 'EADDRNOTAVAIL' && code !== 'EAFNOSUPPORT')) throw new Error(`cannot listen on ${url}: ${message}`);
        skipped.push(`${url}: ${message}`);
      }
    }
  } catch (error) {
    await Promise.all(servers.map(closeServer));
    throw error;
  }
  return {
    urls,
    skipped,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}
