import type { OutgoingHttpHeaders } from 'node:http';
import type { RequestOptions } from 'node:https';
import { isIP } from 'node:net';
import { checkServerIdentity, type PeerCertificate } from 'node:tls';

/**
 * Where to open the TCP connection instead of the URL's host and port, as curl's
 * `--connect-to`: a relay (a site agent's, on the site bridge) in front of the server.
 */
export interface ConnectTo {
  readonly host: string;
  readonly port: number;
}

/** Parses `host:port` or `[ipv6]:port`; throws with a message naming the problem. */
export function parseConnectTo(value: string): ConnectTo {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(value.trim());
  if (match === null) throw new Error(`"${value}" is not host:port (e.g. 10.88.0.1:6443 or [fd00::1]:6443)`);
  const host = match[1] ?? match[2] ?? '';
  const port = Number(match[3]);
  if (port < 1 || port > 65535) throw new Error(`"${value}": port ${port} is not between 1 and 65535`);
  if (match[1] !== undefined && isIP(host) !== 6) throw new Error(`"${value}": "${host}" is not an IPv6 address`);
  return { host, port };
}

/**
 * Options for `https.request(url, …)` that open the connection to `connectTo` while TLS and
 * HTTP still speak to the URL's host: SNI names it (unless it is an IP address, which TLS
 * does not allow as a server name: then no SNI), the server's certificate is checked against
 * it (not against the relay's address), and `Host` carries it. `headers` are the request's own
 * (merged; an explicit `host` among them wins). Without `connectTo`: just the headers.
 */
export function dialOptions(url: string | URL, connectTo: ConnectTo | undefined, headers: OutgoingHttpHeaders = {}): RequestOptions {
  if (connectTo === undefined) return { headers };
  const target = typeof url === 'string' ? new URL(url) : url;
  const name = target.hostname.replace(/^\[(.*)\]$/, '$1');
  return {
    // `hostname` is what node dials when both are set (and the URL sets it): override both.
    hostname: connectTo.host,
    host: connectTo.host,
    port: connectTo.port,
    servername: isIP(name) === 0 ? name : '',
    checkServerIdentity: (_dialed: string, certificate: PeerCertificate) => checkServerIdentity(name, certificate),
    headers: { host: target.host, ...headers },
  };
}
