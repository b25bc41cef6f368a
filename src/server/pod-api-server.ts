import type { Duplex } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { PLATFORM_CA_PATH } from '../common/fetch-pinned-ca.js';
import { buildHttpsApp, type HttpsAppOptions } from './https-app.js';

export interface PodApiServerOptions extends HttpsAppOptions {
  /** The platform CA PEM, served at `GET /api/sites/v1/ca` (the sidecar pins it with its token's `ca_pin`). */
  readonly caPem: string;
  /**
   * Adds the other routes a pod's sidecar calls, each API's pod routes alone: identity issuance
   * and renewal, the secret API's unseal and providers.
   */
  readonly routes: (app: FastifyInstance) => void;
}

/** The control plane's pod-facing API: connections relayed from pods, served by the sidecar's routes alone. */
export interface PodApiServer {
  /** Serves one relayed connection: the pod's TLS, end to end, as if it had been accepted here. */
  serve(socket: Duplex): void;
  /** Stops serving: idle connections end, open ones after their request. */
  close(): Promise<void>;
}

/**
 * The pod-facing API (docs/SITE-API.md, "The pod relay"): an HTTPS server that listens on no
 * port of its own. The site agents relay their pods' connections to the control plane over an
 * authenticated site API upgrade, and each relayed connection is handed to it: the same TLS
 * certificate as the control plane's listener, so the sidecar's checks (the server name, the
 * pinned CA) hold; the sidecar's routes — the CA, issuance with a bootstrap token, renewal and
 * the secret API with a pod certificate — and nothing else: metrics, version, health and
 * every other API are 404 (`404 page not found`) from a pod.
 */
export async function buildPodApiServer(options: PodApiServerOptions): Promise<PodApiServer> {
  const { caPem, routes, ...base } = options;
  const app = buildHttpsApp(base);
  app.get(PLATFORM_CA_PATH, (_request, reply) => reply.code(200).type('text/plain; charset=utf-8').send(caPem));
  routes(app);
  await app.ready();
  return {
    serve: (socket) => void app.server.emit('connection', socket),
    close: () => app.close(),
  };
}
