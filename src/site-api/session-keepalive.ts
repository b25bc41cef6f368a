import type { Http2Session } from 'node:http2';

/** How often both ends of a tunnel ping: under the 20 s idle timeouts of common load balancers. */
export const TUNNEL_PING_INTERVAL_MS = 15_000;

/**
 * Pings `session` every `intervalMs`; a ping still unanswered at the next one means the peer
 * or the path is gone (a half-open TCP connection never errors by itself), and the session is
 * destroyed with an error saying so. Stops when the session closes.
 */
export function keepSessionAlive(session: Http2Session, intervalMs: number = TUNNEL_PING_INTERVAL_MS): void {
  let waiting = false;
  const timer = setInterval(() => {
    if (session.destroyed) return clearInterval(timer);
    if (waiting) {
      clearInterval(timer);
      session.destroy(new Error(`the tunnel's peer did not answer a ping within ${intervalMs} ms`));
      return;
    }
    waiting = true;
    session.ping((error) => {
      if (error === null) waiting = false;
    });
  }, intervalMs);
  timer.unref();
  session.once('close', () => clearInterval(timer));
}
