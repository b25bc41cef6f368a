import { StatusError } from '../../apimachinery/errors/status-error.js';
import { parseUint16 } from './query-values.js';
import { StreamError } from './stream-error.js';

/**
 * The ports of a WebSocket port-forward (`?ports=80&ports=443` or `?ports=80,443`). The API
 * server decodes them (400 Status `cannot convert to []int32: …` when one is not a uint16);
 * kubelet then requires at least one, each above 0 (400 text). SPDY port-forward names the
 * port per stream instead and ignores the query.
 */
export function parseWebSocketPorts(query: URLSearchParams): number[] {
  const values = query.getAll('ports');
  const ports: number[] = [];
  for (const value of values) {
    for (const part of value.split(',')) {
      const port = parseUint16(part);
      if (typeof port === 'string') throw StreamError.status(StatusError.badRequest(`cannot convert to []int32: ${port}`));
      ports.push(port);
    }
  }
  if (ports.length === 0) throw StreamError.node(400, 'query parameter "port" is required');
  const zero = ports.find((p) => p < 1);
  if (zero !== undefined) throw StreamError.node(400, `port "${zero}" must be > 0`);
  return ports;
}
