import type { FastifyRequest } from 'fastify';
import type { CredentialService } from '../../auth/credentials.js';
import type { ConfigService } from '../../config/config-service.js';
import type { Logger } from '../../observability/logger.js';
import type { PodCertificateVerifier } from '../ports.js';
import type { SecretService } from '../secret-service.js';

/** What the secret management API's routes need from the server that registers them. */
export interface SecretApiDependencies {
  readonly secrets: SecretService;
  /** Tenant credentials (API tokens, API certificates), as the configuration API authenticates them. */
  readonly credentials: CredentialService;
  readonly configService: ConfigService;
  /** Pod client certificates (the identity service's verifier). */
  readonly podCertificates: PodCertificateVerifier;
  readonly logger: Logger;
  /** Largest request body, bytes. */
  readonly bodyLimit: number;
  /** Only the routes a pod's sidecar calls — unseal and providers, not the tenants' (the pod-facing API). */
  readonly podsOnly?: boolean;
}

export const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export type Method = (typeof METHODS)[number];
type SecretHandler = (request: FastifyRequest) => Promise<unknown>;
export type SecretRoute = (path: string, handlers: Partial<Record<Method, SecretHandler>>) => void;
