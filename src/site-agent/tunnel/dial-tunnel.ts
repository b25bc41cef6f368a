import { performServerHandshake, type ServerHttp2Session } from 'node:http2';
import type { AgentCredential } from '../agent-credential.js';
import { TUNNEL_PATH, TUNNEL_PROTOCOL } from '../../site-api/tunnel-protocol.js';
import { dialUpgrade } from './dial-upgrade.js';

/** HTTP/2 windows of the tunnel: what the control plane may send on a stream, and on all of them, before the agent reads. */
const TUNNEL_STREAM_WINDOW = 1024 * 1024;
const TUNNEL_SESSION_WINDOW = 16 * 1024 * 1024;

/**
 * Opens the agent's tunnel: TLS to the control plane with the agent's client certificate
 * (trusting only the platform CA), `GET /api/sites/v1/tunnel` with `Upgrade:
 * edgeplane-tunnel.v1`, and on `101` an HTTP/2 server session on the dialled socket — the
 * control plane's streams arrive on it. A refusal throws SiteApiError with the server's code.
 */
export async function dialTunnel(credential: Pick<AgentCredential, 'server' | 'ca' | 'certificate' | 'key'>, signal: AbortSignal): Promise<ServerHttp2Session> {
  const socket = await dialUpgrade(credential, { path: TUNNEL_PATH, protocol: TUNNEL_PROTOCOL, what: 'opening the tunnel' }, signal);
  const session = performServerHandshake(socket, { settings: { initialWindowSize: TUNNEL_STREAM_WINDOW, enablePush: false } });
  session.setLocalWindowSize(TUNNEL_SESSION_WINDOW);
  return session;
}
