import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import type { StreamError } from './stream-error.js';

/**
 * HTTP answers written straight on an upgrade request's socket (no `ServerResponse` exists
 * for those), then the socket is closed.
 */
function writeRawAnswer(socket: Duplex, code: number, headers: Readonly<Record<string, string>>, body: string): void {
  const payload = Buffer.from(body);
  const lines = [`HTTP/1.1 ${code} ${STATUS_CODES[code] ?? ''}`];
  for (const [name, value] of Object.entries({ ...headers, 'Content-Length': String(payload.length), Connection: 'close' })) {
    lines.push(`${name}: ${value}`);
  }
  if (!socket.writable) return;
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n'), payload]));
}

/** The 101 that switches an upgrade request to SPDY/3.1. */
export function writeSpdySwitch(socket: Duplex, protocol: string): void {
  const lines = ['HTTP/1.1 101 Switching Protocols', 'Connection: Upgrade', 'Upgrade: SPDY/3.1'];
  if (protocol !== '') lines.push(`X-Stream-Protocol-Version: ${protocol}`);
  socket.write(lines.join('\r\n') + '\r\n\r\n');
}

/**
 * A refusal before the upgrade: a Status as JSON (the API server's), or the node's text with
 * its code, as kube-apiserver passes kubelet's answer through.
 */
export function refuseUpgrade(socket: Duplex, error: StatusError | StreamError, headers: Readonly<Record<string, string>> = {}): void {
  const status = error instanceof StatusError ? error : error.status;
  if (status !== undefined) {
    writeRawAnswer(socket, status.code, { ...headers, 'Content-Type': 'application/json' }, JSON.stringify(status.toStatus()));
    return;
  }
  writeRawAnswer(socket, error.code, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff' }, error.message);
}
