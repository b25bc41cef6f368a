import { randomUUID } from 'node:crypto';
import { errors, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import type { Clock } from '../common/clock.js';
import { IdentityError } from './identity-error.js';
import type { TokenSigningKey } from './token-signing-key.js';

const TOKEN_ISSUER = 'edgeplane';
const TOKEN_AUDIENCE = 'edgeplane-identity';
export const DEFAULT_TOKEN_TTL_SECONDS = 600;
export const MAX_TOKEN_TTL_SECONDS = 3600;
/** Tolerated clock difference between the server that signed a token and the one verifying it. */
const CLOCK_TOLERANCE_SECONDS = 30;

/** The pod a bootstrap token is bound to: the `edgeplane.io` claim. */
export interface TokenBinding {
  readonly tenant: string;
  readonly namespace: string;
  readonly vk8s: string;
  readonly site: string;
  readonly pod: { readonly name: string; readonly uid: string };
}

/** `system:pod:<namespace>:<vk8s>:<pod>`. */
const tokenSubject = (b: Pick<TokenBinding, 'namespace' | 'vk8s' | 'pod'>): string => `system:pod:${b.namespace}:${b.vk8s}:${b.pod.name}`;

const isString = (value: unknown): value is string => typeof value === 'string' && value !== '';

/** Pure: the binding a verified payload carries, when it is complete and agrees with `sub`. */
function bindingOf(payload: JWTPayload): TokenBinding | undefined {
  const claim = payload['edgeplane.io'] as Record<string, unknown> | undefined;
  if (typeof claim !== 'object' || claim === null) return undefined;
  const pod = claim['pod'] as Record<string, unknown> | undefined;
  const fields = [claim['tenant'], claim['namespace'], claim['vk8s'], claim['site'], pod?.['name'], pod?.['uid']];
  if (!fields.every(isString)) return undefined;
  const binding = claim as unknown as TokenBinding;
  return payload.sub === tokenSubject(binding) ? { tenant: binding.tenant, namespace: binding.namespace, vk8s: binding.vk8s, site: binding.site, pod: { name: binding.pod.name, uid: binding.pod.uid } } : undefined;
}

/**
 * Bootstrap tokens (JWT, ES256, like Kubernetes' bound service-account tokens): signed for
 * one pod with `iss`, `aud`, `sub`, `iat`, `nbf`, `exp`, `jti`, the pod binding and the
 * platform CA's pin (`ca_pin`, so a sidecar given only a server URL and a token can check
 * the CA it fetches). Verification uses the public key imported once (jose keeps it).
 */
export class BootstrapTokens {
  constructor(
    private readonly key: TokenSigningKey,
    private readonly clock: Clock,
    /** `sha256:<hex>` of the platform API CA. */
    private readonly caPin: string,
  ) {}

  async sign(binding: TokenBinding, ttlSeconds: number): Promise<{ token: string; expiresAt: Date }> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const expires = now + ttlSeconds;
    const token = await new SignJWT({ 'edgeplane.io': { tenant: binding.tenant, namespace: binding.namespace, vk8s: binding.vk8s, site: binding.site, pod: { name: binding.pod.name, uid: binding.pod.uid } }, ca_pin: this.caPin })
      .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: this.key.kid })
      .setIssuer(TOKEN_ISSUER)
      .setAudience(TOKEN_AUDIENCE)
      .setSubject(tokenSubject(binding))
      .setIssuedAt(now)
      .setNotBefore(now)
      .setExpirationTime(expires)
      .setJti(randomUUID())
      .sign(this.key.privateKey);
    return { token, expiresAt: new Date(expires * 1000) };
  }

  /** The binding of a token whose signature, issuer, audience and times verify; IdentityError `Unauthenticated` otherwise. */
  async verify(token: string): Promise<TokenBinding> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, (header) => this.keyFor(header.kid), {
        issuer: TOKEN_ISSUER,
        audience: TOKEN_AUDIENCE,
        algorithms: ['ES256'],
        requiredClaims: ['exp', 'nbf', 'iat', 'jti', 'sub'],
        currentDate: this.clock.now(),
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (error) {
      throw new IdentityError('Unauthenticated', `the bootstrap token is not valid: ${tokenProblem(error)}`);
    }
    const binding = bindingOf(payload);
    if (binding === undefined) throw new IdentityError('Unauthenticated', 'the bootstrap token is not valid: it does not name a pod (claim "edgeplane.io" and "sub")');
    return binding;
  }

  private keyFor(kid: string | undefined): TokenSigningKey['publicKey'] {
    if (kid !== this.key.kid) throw new errors.JWKSNoMatchingKey(`it was signed with key ${JSON.stringify(kid ?? null)}, which this service does not have`);
    return this.key.publicKey;
  }
}

function tokenProblem(error: unknown): string {
  if (error instanceof errors.JWTExpired) return `it expired at ${new Date(Number(error.payload.exp) * 1000).toISOString()}`;
  if (error instanceof errors.JWTClaimValidationFailed) return `claim "${error.claim}": ${error.reason === 'check_failed' ? error.message : error.reason === 'missing' ? 'missing' : error.message}`;
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'its signature does not verify';
  if (error instanceof errors.JOSEError) return error.message;
  return 'it cannot be read';
}
