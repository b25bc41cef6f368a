import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { parseWebSocketPorts } from './port-forward-options.js';
import { refuseQueryPorts } from './port-forward-refusal.js';
import { negotiateSpdy, negotiateWebSocket, spdyRemoteCommandProtocol, type ChannelProtocol } from './protocols.js';
import { refuseUpgrade, writeSpdySwitch } from './raw-answer.js';
import type { RemoteCommand } from './remote-command.js';
import { parseAttachOptions, parseExecOptions } from './remote-command-options.js';
import { DEFAULT_TIMING, type SessionTiming } from './session-timing.js';
import { serveSpdyPortForward } from './spdy/spdy-port-forward.js';
import { serveSpdyRemoteCommand } from './spdy/spdy-remote-command.js';
import { StreamError } from './stream-error.js';
import type { PodStreamBackend, PodTarget, StreamKind } from './types.js';
import { upgradeTransport } from './upgrade-request.js';
import { serveTunneledPortForward, serveWebSocketPortForward } from './websocket/ws-port-forward.js';
import { serveWebSocketRemoteCommand } from './websocket/ws-remote-command.js';

/** An upgrade request for a pod's `exec`, `attach` or `portforward`, its pod already resolved (`podStreamTarget`). */
export interface PodUpgradeRoute {
  readonly kind: StreamKind;
  readonly target: PodTarget;
  readonly query: URLSearchParams;
}

export interface PodUpgradeOptions {
  /** Stream errors (client resets, GOAWAYs, backend failures) are logged at debug level. */
  readonly logger?: Logger;
  readonly timing?: Partial<SessionTiming>;
  /** Told once how the request turned out before anything flowed (for the audit). */
  readonly onOutcome?: (outcome: PodUpgradeOutcome) => void;
}

/**
 * A request refused before the upgrade (the answer's code and message), or upgraded with
 * `protocol`: `SPDY/3.1+<X-Stream-Protocol-Version>` or `websocket+<subprotocol>`.
 */
type PodUpgradeOutcome = { readonly upgraded: false; readonly code: number; readonly message: string } | { readonly upgraded: true; readonly protocol: string };

type Preflight = { readonly command: RemoteCommand } | { readonly ports: readonly number[] };

/**
 * Serves a pod stream on an HTTP upgrade (the server's `upgrade` event), in the order a real
 * cluster checks things: the transport (`Upgrade request required`), the options (kubelet's
 * `you must specify at least 1 of stdin, stdout, stderr`, WebSocket ports; a `ports=` naming
 * the sidecar's port of a pod that carries it is 403 Forbidden), the backend's
 * `admit`, then the protocol negotiation (SPDY: `X-Stream-Protocol-Version`; WebSocket:
 * `Sec-WebSocket-Protocol`). Refusals are answered on the socket; after the upgrade the
 * protocol runs until the session is over. Resolves then; never rejects.
 */
export async function handlePodUpgrade(
  request: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  route: PodUpgradeRoute,
  backend: PodStreamBackend,
  options: PodUpgradeOptions = {},
): Promise<void> {
  const timing: SessionTiming = { ...DEFAULT_TIMING, ...options.timing };
  const onError = (error: Error): void => options.logger?.debug({ err: error, pod: route.target.pod, stream: route.kind }, 'pod stream error');
  socket.on('error', onError);
  const onOutcome = options.onOutcome ?? ((): void => undefined);
  let transport: 'websocket' | 'spdy';
  let preflight: Preflight;
  try {
    transport = upgradeTransport(request.headers, request.rawHeaders);
    preflight = parseRoute(route, transport, request);
    await backend.admit?.(route.target, route.kind);
  } catch (error) {
    onOutcome(refuse(socket, error, options.logger));
    return;
  }
  try {
    if (transport === 'spdy') await serveSpdy(request, socket, head, route, preflight, backend, { timing, onError, onOutcome });
    else await serveWebSocket(request, socket, head, route, preflight, backend, { timing, onError, onOutcome });
  } catch (error) {
    options.logger?.error({ err: error, pod: route.target.pod, stream: route.kind }, 'pod stream failed');
    socket.destroy();
  }
}

function parseRoute(route: PodUpgradeRoute, transport: 'websocket' | 'spdy', request: IncomingMessage): Preflight {
  switch (route.kind) {
    case 'exec':
      return { command: { kind: 'exec', target: route.target, options: parseExecOptions(route.query, route.target.container) } };
    case 'attach':
      return { command: { kind: 'attach', target: route.target, options: parseAttachOptions(route.query, route.target.container) } };
    case 'portforward': {
      // Ports come from the query only for WebSocket channels; SPDY (tunneled or not) names them per stream.
      const channels = transport === 'websocket' && negotiateWebSocket(request.headers['sec-websocket-protocol'], 'portforward').kind !== 'tunnel';
      const ports = channels ? parseWebSocketPorts(route.query) : [];
      refuseQueryPorts(route.target, route.query);
      return { ports };
    }
  }
}

function refuse(socket: Duplex, error: unknown, logger: Logger | undefined): PodUpgradeOutcome {
  if (!(error instanceof StreamError || error instanceof StatusError)) {
    logger?.error({ err: error }, 'pod stream request failed');
    return refuse(socket, StatusError.internal('an unexpected error; it has been logged'), logger);
  }
  refuseUpgrade(socket, error);
  return { upgraded: false, code: error.code, message: error.message };
}

interface Setup {
  readonly timing: SessionTiming;
  readonly onError: (error: Error) => void;
  readonly onOutcome: (outcome: PodUpgradeOutcome) => void;
}

async function serveSpdy(request: IncomingMessage, socket: Duplex, head: Buffer, route: PodUpgradeRoute, preflight: Preflight, backend: PodStreamBackend, setup: Setup): Promise<void> {
  const choice = negotiateSpdy(request.headers['x-stream-protocol-version'], route.kind);
  if ('error' in choice) {
    setup.onOutcome({ upgraded: false, code: choice.error.code, message: choice.error.message });
    return refuseUpgrade(socket, choice.error, { 'X-Accepted-Stream-Protocol-Versions': choice.accepted.join(', ') });
  }
  writeSpdySwitch(socket, choice.protocol);
  setup.onOutcome({ upgraded: true, protocol: choice.protocol === '' ? 'SPDY/3.1' : `SPDY/3.1+${choice.protocol}` });
  if ('ports' in preflight) return serveSpdyPortForward(socket, head, route.target, backend, setup);
  return serveSpdyRemoteCommand(socket, head, preflight.command, backend, { ...setup, protocol: spdyRemoteCommandProtocol(choice.protocol) });
}

async function serveWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer, route: PodUpgradeRoute, preflight: Preflight, backend: PodStreamBackend, setup: Setup): Promise<void> {
  const choice = negotiateWebSocket(request.headers['sec-websocket-protocol'], route.kind);
  // kubelet's WebSocket handshake refuses unknown subprotocols with an empty 403.
  if (choice.kind === 'none') {
    setup.onOutcome({ upgraded: false, code: 403, message: 'no WebSocket subprotocol the server speaks was offered' });
    return refuseUpgrade(socket, StreamError.node(403, ''));
  }
  const ws = await acceptWebSocket(request, socket, head, choice.header);
  if (ws === null) return setup.onOutcome({ upgraded: false, code: 400, message: 'not a valid WebSocket handshake' });
  setup.onOutcome({ upgraded: true, protocol: choice.header === undefined ? 'websocket' : `websocket+${choice.header}` });
  if (choice.kind === 'tunnel') return serveTunneledPortForward(ws, route.target, backend, setup);
  const protocol: ChannelProtocol = choice.protocol;
  if ('ports' in preflight) return serveWebSocketPortForward(ws, preflight.ports, route.target, backend, { ...setup, protocol });
  return serveWebSocketRemoteCommand(ws, preflight.command, backend, { ...setup, protocol });
}

/**
 * Completes the WebSocket handshake answering with `subprotocol`; null when the request was
 * not a valid handshake (ws answered it). The subprotocol is negotiated here, not by ws: ws
 * rejects offers that are not RFC 6455 tokens, such as kubectl's `SPDY/3.1+portforward.k8s.io`.
 */
function acceptWebSocket(request: IncomingMessage, socket: Duplex, head: Buffer, subprotocol: string | undefined): Promise<WebSocket | null> {
  const server = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false });
  delete request.headers['sec-websocket-protocol'];
  if (subprotocol !== undefined) server.on('headers', (headers: string[]) => headers.push(`Sec-WebSocket-Protocol: ${subprotocol}`));
  return new Promise((resolve) => {
    const onClose = (): void => resolve(null);
    socket.once('close', onClose);
    server.handleUpgrade(request, socket, head, (ws) => {
      socket.off('close', onClose);
      resolve(ws);
    });
  });
}
