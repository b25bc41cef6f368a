import type { FastifyRequest } from 'fastify';
import type { CredentialService } from '../../auth/credentials.js';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../common/clock.js';
import type { TokenBuckets } from '../../common/token-buckets.js';
import type { Logger } from '../../observability/logger.js';
import type { ConfigService } from '../config-service.js';
import type { TxtResolver } from '../dns-verification.js';
import type { TenantService } from '../tenant-service.js';

/** What the configuration API's routes need from the server that registers them. */
export interface ConfigApiDependencies {
  readonly service: ConfigService;
  readonly credentials: CredentialService;
  readonly tenants: TenantService;
  readonly resolver: TxtResolver;
  readonly clock: Clock;
  readonly logger: Logger;
  /** Largest request body, bytes (default 1 MiB). */
  readonly bodyLimit: number;
  /** The OpenAPI 3 document of this API. */
  readonly openapi: () => unknown;
  /** The URL clients reach this server at (kubeconfigs point there). */
  readonly publicUrl: () => string;
  /** Requests per credential (per client address when unauthenticated) over time; none when unset. */
  readonly rateLimit?: ConfigApiRateLimit;
}

/** The configuration API's rate limit: a token bucket per credential, or per address for requests without a valid one. */
export interface ConfigApiRateLimit {
  readonly buckets: TokenBuckets;
  /** Told of each request refused with 429, and what its bucket was keyed on. */
  readonly refused: (key: 'credential' | 'address') => void;
}

/** A route handler: the authenticated principal and the request; resolves to the JSON answer. */
export type Handler = (principal: Principal, request: FastifyRequest) => Promise<unknown>;
export const ALL_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;

/** Registers handlers by method for one path (other methods answer Unimplemented). */
export type RouteFunction = (path: string, methods: Partial<Record<(typeof ALL_METHODS)[number], Handler>>) => void;
