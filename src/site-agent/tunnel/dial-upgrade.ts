import { request } from 'node:https';
import type { Socket } from 'node:net';
import type { AgentCredential } from '../agent-credential.js';
import { SiteApiError } from '../site-api-error.js';

const DIAL_TIMEOUT_MS = 30_000;
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * An upgrade on the site API: TLS to the control plane with the agent's client certificate
 * (trusting only the platform CA), `GET <path>` with `Connection: Upgrade`, `Upgrade:
 * <protocol>`; on `101` with that protocol, the dialled socket, with whatever the control plane
 * sent after the 101 put back in front of it. A refusal throws SiteApiError with the server's
 * code and Status; no answer within 30 s, or `signal` aborting, fails the dial. `what` names
 * the request in errors ("opening the tunnel").
 */
export function dialUpgrade(
  credential: Pick<AgentCredential, 'server' | 'ca' | 'certificate' | 'key'>,
  upgrade: { readonly path: string; readonly protocol: string; readonly what: string },
  signal?: AbortSignal,
): Promise<Socket> {
  const { path, protocol, what } = upgrade;
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, credential.server), {
      method: 'GET',
      agent: false,
      ca: credential.ca,
      cert: credential.certificate,
      key: credential.key,
      ...(signal === undefined ? {} : { signal }),
      timeout: DIAL_TIMEOUT_MS,
      headers: { connection: 'Upgrade', upgrade: protocol },
    });
    req.once('timeout', () => req.destroy(new Error(`the control plane did not answer ${what} within ${DIAL_TIMEOUT_MS / 1000} s`)));
    req.once('error', reject);
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if ((size += chunk.length) <= MAX_ANSWER_BYTES) chunks.push(chunk);
      });
      res.once('end', () => reject(SiteApiError.of(`${what} failed`, res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'))));
      res.once('error', reject);
    });
    req.once('upgrade', (res, socket: Socket, head: Buffer) => {
      if (res.headers.upgrade?.toLowerCase() !== protocol) {
        socket.destroy();
        reject(new Error(`the control plane switched ${what} to ${JSON.stringify(res.headers.upgrade ?? '')}, not ${protocol}`));
        return;
      }
      req.setTimeout(0);
      socket.setTimeout(0);
      socket.setNoDelay(true);
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    req.end();
  });
}
