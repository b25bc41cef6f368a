import { isIP } from 'node:net';

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

/**
 * Parses `host:port`, `[ipv6]:port` or `:port` (all interfaces). Port 0 picks a free port.
 * Throws with a message naming the problem.
 */
export function parseListenAddress(value: string): ListenAddress {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  if (match === null) throw new Error(`listen address "${value}" is not host:port (e.g. 127.0.0.1:6443 or [::1]:6443)`);
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  if (port > 65535) throw new Error(`listen address "${value}": port ${port} is above 65535`);
  if (match[1] !== undefined && isIP(host) !== 6) throw new Error(`listen address "${value}": "${host}" is not an IPv6 address`);
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/** The URL clients use for an address (IPv6 hosts in brackets). */
export function urlFor(address: ListenAddress, scheme = 'https'): string {
  const host = isIP(address.host) === 6 ? `[${address.host}]` : address.host;
  return `${scheme}://${host}:${address.port}`;
}
