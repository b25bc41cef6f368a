import { StreamError } from './stream-error.js';
import type { StreamKind } from './types.js';

/**
 * The stream protocols and their negotiation. SPDY names its protocol in
 * `X-Stream-Protocol-Version` (kubectl ≤ 1.29); WebSocket in `Sec-WebSocket-Protocol`
 * (client-node, kubectl ≥ 1.30). In both the client's order wins: the first protocol it
 * lists that the server speaks.
 */

/** A remote-command protocol: its name and what its version changes. */
export interface ChannelProtocol {
  readonly name: string;
  /** 1–3 report failures as text, 4+ as a JSON Status; 3+ have a resize stream; 5 has close signals. */
  readonly version: 1 | 2 | 3 | 4 | 5;
  /** WebSocket text frames: an ASCII channel digit and base64 data. */
  readonly base64: boolean;
}

const channel = (name: string, version: ChannelProtocol['version'], base64 = false): ChannelProtocol => ({ name, version, base64 });

/** kubelet's SPDY exec/attach protocols. */
export const SPDY_REMOTE_COMMAND: readonly ChannelProtocol[] = [
  channel('v4.channel.k8s.io', 4),
  channel('v3.channel.k8s.io', 3),
  channel('v2.channel.k8s.io', 2),
  channel('channel.k8s.io', 1),
];

/** WebSocket exec/attach: kubelet's (v4, pre-v4, base64 variants), the older names client-node offers, and v5 (kube ≥ 1.30). */
const WEBSOCKET_REMOTE_COMMAND: readonly ChannelProtocol[] = [
  channel('v5.channel.k8s.io', 5),
  channel('v4.channel.k8s.io', 4),
  channel('v4.base64.channel.k8s.io', 4, true),
  channel('v3.channel.k8s.io', 3),
  channel('v2.channel.k8s.io', 2),
  channel('channel.k8s.io', 1),
  channel('base64.channel.k8s.io', 1, true),
];

/** WebSocket port-forward: kubelet speaks only these (and no protocol at all). */
const WEBSOCKET_PORT_FORWARD: readonly ChannelProtocol[] = [channel('v4.channel.k8s.io', 4), channel('v4.base64.channel.k8s.io', 4, true)];

const SPDY_PORT_FORWARD = 'portforward.k8s.io';
/** kubectl ≥ 1.31 tunnels SPDY port-forward through a WebSocket under this name. */
const TUNNELED_SPDY_PORT_FORWARD = 'SPDY/3.1+portforward.k8s.io';

/** The values of a repeated, comma-joined header (Node joins repeated headers with ", "). */
export function headerList(value: string | readonly string[] | undefined): string[] {
  const values = value === undefined ? [] : typeof value === 'string' ? [value] : value;
  return values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

/** The SPDY protocol for a request: "" when the client names none (kube 1.0 clients, v1 semantics). */
export type SpdyChoice = { readonly protocol: string } | { readonly error: StreamError; readonly accepted: readonly string[] };

/**
 * apimachinery's `httpstream.Handshake`: without a match, 403 `unable to upgrade: unable to
 * negotiate protocol: client supports [a b], server accepts [c d]` and the accepted versions
 * in `X-Accepted-Stream-Protocol-Versions`.
 */
export function negotiateSpdy(header: string | readonly string[] | undefined, kind: StreamKind): SpdyChoice {
  const client = headerList(header);
  if (client.length === 0) return { protocol: '' };
  const server = kind === 'portforward' ? [SPDY_PORT_FORWARD] : SPDY_REMOTE_COMMAND.map((p) => p.name);
  const chosen = client.find((p) => server.includes(p));
  if (chosen !== undefined) return { protocol: chosen };
  const message = `unable to upgrade: unable to negotiate protocol: client supports [${client.join(' ')}], server accepts [${server.join(' ')}]`;
  return { error: StreamError.node(403, message), accepted: server };
}

/** The remote-command protocol of a negotiated SPDY name ("" is v1). */
export function spdyRemoteCommandProtocol(name: string): ChannelProtocol {
  return SPDY_REMOTE_COMMAND.find((p) => p.name === name) ?? channel('', 1);
}

/** What a WebSocket request asked for, and what the server picked. */
export type WebSocketChoice =
  | { readonly kind: 'channels'; readonly protocol: ChannelProtocol; readonly header?: string }
  | { readonly kind: 'tunnel'; readonly header: string }
  | { readonly kind: 'none' };

/**
 * The WebSocket subprotocol (x/net/websocket's handshake as kubelet configures it): the first
 * offered one the server speaks; no offer at all means binary channels with v1 semantics.
 * `none` is a refusal (kubelet answers 403 with an empty body).
 */
export function negotiateWebSocket(header: string | readonly string[] | undefined, kind: StreamKind): WebSocketChoice {
  const offered = headerList(header);
  if (offered.length === 0) return { kind: 'channels', protocol: channel('', kind === 'portforward' ? 4 : 1) };
  const supported = kind === 'portforward' ? WEBSOCKET_PORT_FORWARD : WEBSOCKET_REMOTE_COMMAND;
  for (const name of offered) {
    if (kind === 'portforward' && name === TUNNELED_SPDY_PORT_FORWARD) return { kind: 'tunnel', header: name };
    const protocol = supported.find((p) => p.name === name);
    if (protocol !== undefined) return { kind: 'channels', protocol, header: name };
  }
  return { kind: 'none' };
}
