/**
 * What the HTTPS server grants each client (its protection against abusive ones). The
 * command line's defaults are these; `ControlPlaneOptions.limits` overrides some of them.
 * Kept free of imports: `edgeplane` reads the defaults for its help without loading the server.
 */
export interface ServerLimits {
  /**
   * A request's line and headers must have arrived this long after it started (for a new
   * connection, after the TLS handshake; the handshake itself gets as long): slowloris on headers.
   */
  readonly readHeaderTimeoutMs: number;
  /**
   * The whole request, body included, must have arrived this long after it started: slowloris
   * on bodies. Responses are not limited (a watch or a stream runs as long as it runs).
   */
  readonly readTimeoutMs: number;
  /** A keep-alive connection with no request in progress is closed after this long. */
  readonly idleTimeoutMs: number;
  /** TCP connections open at once; more are closed as soon as accepted. */
  readonly maxConnections: number;
  /** TCP connections open at once from one client address, so one client cannot take them all. */
  readonly maxConnectionsPerAddress: number;
  /** Configuration API requests per second per credential (per client address when unauthenticated); 0 turns the limit off. */
  readonly configApiRate: number;
  /** Configuration API requests a credential may make at once above its rate (the bucket's size). */
  readonly configApiBurst: number;
}

export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  readHeaderTimeoutMs: 30_000,
  readTimeoutMs: 60_000,
  idleTimeoutMs: 60_000,
  maxConnections: 10_000,
  maxConnectionsPerAddress: 1_000,
  configApiRate: 100,
  configApiBurst: 200,
};

/** Descriptors kept for what is not a client connection: the store, etcd, files, the sites' own connections. */
const RESERVED_FILES = 256;

/**
 * `limits` with the connection cap lowered, when it must be, below the process's open-file
 * limit (less {@link RESERVED_FILES}): past it, accepting fails and node throws. `clampedFrom`
 * is the cap asked for when it was lowered.
 */
export function connectionsWithinFileLimit(limits: ServerLimits, fileLimit: { readonly soft: number } | undefined): ServerLimits & { readonly clampedFrom?: number } {
  if (fileLimit === undefined) return limits;
  const fits = Math.max(1, fileLimit.soft - RESERVED_FILES);
  return limits.maxConnections <= fits ? limits : { ...limits, maxConnections: fits, clampedFrom: limits.maxConnections };
}
