import { performServerHandshake, type ServerHttp2Session } from 'node:http2';
import { request } from 'node:https';
import type { Socket } from 'node:net';
import type { AgentCredential } from '../agent-credential.js';
import { SiteApiError } from '../site-api-error.js';
import { TUNNEL_PATH, TUNNEL_PROTOCOL } from '../../site-api/tunnel-protocol.js';

/** HTTP/2 windows of the tunnel: what the control plane may send on a stream, and on all of them, before the agent reads. */
const TUNNEL_STREAM_WINDOW = 1024 * 1024;
const TUNNEL_SESSION_WINDOW = 16 * 1024 * 1024;

const DIAL_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * Opens the agent's tunnel: TLS to the control plane with the agent's client certificate
 * (trusting only the platform CA), `GET /api/sites/v1/tunnel` with `Upgrade:
 * edgeplane-tunnel.v1`, and on `101` an HTTP/2 server session on the dialled socket — the
 * control plane's streams arrive on it. A refusal throws SiteApiError with the server's code.
 */
export function dialTunnel(credential: Pick<AgentCredential, 'server' | 'ca' | 'certificate' | 'key'>, signal: AbortSignal): Promise<ServerHttp2Session> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(TUNNEL_PATH, credential.server), {
      method: 'GET',
      agent: false,
      ca: credential.ca,
      cert: credential.certificate,
      key: credential.key,
      signal,
      timeout: DIAL_TIMEOUT_MS,
      headers: { connection: 'Upgrade', upgrade: TUNNEL_PROTOCOL },
    });
    req.once('timeout', () => req.destroy(new Error(`the control plane did not answer the tunnel request within ${DIAL_TIMEOUT_MS / 1000} s`)));
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if ((size += chunk.length) <= MAX_ANSWER_BYTES) chunks.push(chunk);
      });
      res.once('end', () => reject(SiteApiError.of('opening the tunnel failed', res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
      res.once('error', reject);
    });
    req.once('upgrade', (res, socket: Socket, head: Buffer) => {
      if (res.headers.upgrade?.toLowerCase() !== TUNNEL_PROTOCOL) {
        socket.destroy();
        reject(new Error(`the control plane switched to ${JSON.stringify(res.headers.upgrade ?? '')}, not ${TUNNEL_PROTOCOL}`));
        return;
      }
      req.setTimeout(0);
      socket.setTimeout(0);
      socket.setNoDelay(true);
      if (head.length > 0) socket.unshift(head);
      const session = performServerHandshake(socket, { settings: { initialWindowSize: TUNNEL_STREAM_WINDOW, enablePush: false } });
      session.setLocalWindowSize(TUNNEL_SESSION_WINDOW);
      resolve(session);
    });
    req.end();
  });
}
