import type { IncomingHttpHeaders } from 'node:http';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { headerList } from './protocols.js';
import { StreamError } from './stream-error.js';

/** kube-apiserver's answer to a stream request that is not an upgrade (400 Status). */
export function upgradeRequired(): StatusError {
  return StatusError.badRequest('Upgrade request required');
}

/**
 * Which transport an upgrade request asks for. Without `Connection: Upgrade` it is kube-
 * apiserver's 400 Status `Upgrade request required`; an upgrade to anything but WebSocket or
 * SPDY/3.1 is kubelet's 400 `unable to upgrade: missing upgrade headers in request: …`.
 */
export function upgradeTransport(headers: IncomingHttpHeaders, rawHeaders: readonly string[]): 'websocket' | 'spdy' {
  const connection = headerList(headers.connection).map((v) => v.toLowerCase());
  if (!connection.includes('upgrade')) throw StreamError.status(upgradeRequired());
  const upgrade = (headers.upgrade ?? '').toLowerCase();
  if (upgrade.split(',').some((v) => v.trim() === 'websocket')) return 'websocket';
  if (upgrade.includes('spdy/3.1')) return 'spdy';
  throw StreamError.node(400, `unable to upgrade: missing upgrade headers in request: ${goHeaderDump(rawHeaders)}`);
}

/** Go's `%#v` of an `http.Header`, the way kubelet prints a request's headers. */
export function goHeaderDump(rawHeaders: readonly string[]): string {
  const values = new Map<string, string[]>();
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = canonicalHeaderKey(rawHeaders[i] ?? '');
    values.set(name, [...(values.get(name) ?? []), rawHeaders[i + 1] ?? '']);
  }
  const entries = [...values.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `http.Header{${entries.map(([k, v]) => `${JSON.stringify(k)}:[]string{${v.map((x) => JSON.stringify(x)).join(', ')}}`).join(', ')}}`;
}

function canonicalHeaderKey(name: string): string {
  return name
    .toLowerCase()
    .split('-')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('-');
}
