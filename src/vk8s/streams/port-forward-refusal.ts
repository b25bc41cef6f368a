import { sidecarPortForwardRefusal } from '../../api/sidecar-injection.js';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { parseUint16 } from './query-values.js';
import { StreamError } from './stream-error.js';
import type { PodTarget } from './types.js';

const PODS = { resource: 'pods', group: '' };

/**
 * The API's refusal of port-forward to `port` of the target: 403 Forbidden for the sidecar's
 * port of a pod that carries the sidecar (it serves the pod's private key to the pod alone, so
 * it must not reach a laptop, as exec into the sidecar must not); undefined otherwise. Pure.
 */
export function portForwardRefusal(target: PodTarget, port: number): StatusError | undefined {
  const why = target.sidecar === true ? sidecarPortForwardRefusal(port) : undefined;
  return why === undefined ? undefined : StatusError.forbidden(PODS, target.pod, why);
}

/**
 * Before the upgrade: a request whose `ports=` names a port it may not forward is refused with
 * the Forbidden Status, whatever the transport (WebSocket channel clients name their ports
 * there; kubectl, over SPDY or SPDY over WebSocket, names them per stream instead, where
 * {@link portForwardRefusal} answers each). Values that are not ports are left to the
 * transport's own decoding. Pure; throws the StreamError.
 */
export function refuseQueryPorts(target: PodTarget, query: URLSearchParams): void {
  for (const value of query.getAll('ports')) {
    for (const part of value.split(',')) {
      const port = parseUint16(part);
      const refusal = typeof port === 'number' ? portForwardRefusal(target, port) : undefined;
      if (refusal !== undefined) throw StreamError.status(refusal);
    }
  }
}
