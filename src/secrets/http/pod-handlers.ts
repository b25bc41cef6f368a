import type { FastifyRequest } from 'fastify';
import type { PodIdentity } from '../ports.js';
import { resolveProvider } from '../provider-resolver.js';
import { type ResolvedProvider } from '../resolved-provider.js';
import { SecretError } from '../secret-error.js';
import type { SecretApiDependencies, SecretRoute } from './secret-api-types.js';

/** What `POST /api/secret_management/v1/unseal` answers. */
interface UnsealAnswer {
  readonly data: {
    /** The decrypted bytes, base64. */
    readonly plaintext: string;
    readonly decrypt_cache_timeout: string | null;
    readonly cache_timeout_seconds: number;
  };
}

function bodyObject(raw: unknown): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(typeof raw === 'string' ? raw : '');
  } catch {
    throw new SecretError('InvalidArgument', 'request body is not valid JSON; send {"location": "string:///…"}');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new SecretError('InvalidArgument', 'request body must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** The routes a pod's sidecar calls, authenticated only by the pod's client certificate. */
export function podHandlers(route: SecretRoute, deps: SecretApiDependencies): void {
  const pod = async (request: FastifyRequest): Promise<PodIdentity> => {
    try {
      return await deps.podCertificates.verify(request.raw.socket);
    } catch (error) {
      throw new SecretError('Unauthenticated', `a pod client certificate is required: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  route('/v1/unseal', {
    POST: async (request): Promise<UnsealAnswer> => {
      const caller = await pod(request);
      const location = bodyObject(request.body)['location'];
      if (typeof location !== 'string' || location === '') throw new SecretError('InvalidArgument', 'location: required, the string:///… blindfold location');
      const result = await deps.secrets.unsealer.unseal(caller, location);
      const plaintext = result.plaintext.toString('base64');
      result.plaintext.fill(0);
      return { data: { plaintext, decrypt_cache_timeout: result.decryptCacheTimeout ?? null, cache_timeout_seconds: result.cacheTimeoutSeconds } };
    },
  });

  route('/v1/providers/:name', {
    GET: async (request): Promise<{ data: ResolvedProvider }> => {
      const caller = await pod(request);
      const { name = '' } = request.params as Record<string, string>;
      return { data: await resolveProvider(name, caller, deps.secrets) };
    },
  });
}
