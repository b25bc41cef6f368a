import { STATUS_CODE, StatusError, type StatusReason } from '../apimachinery/errors/status-error.js';
import { isStoreError } from '../store/errors.js';

/** Every way an identity API call fails; each answers one Kubernetes Status reason. */
export type IdentityErrorCode =
  /** The body is not what the route takes (not JSON, unknown or missing fields, a bad value). */
  | 'BadRequest'
  /** A CSR that is not a PKCS#10 request or whose signature does not verify (no proof of possession). */
  | 'InvalidCsr'
  /** A CSR whose key is not EC P-256/P-384 or RSA of 2048 bits or more. */
  | 'UnsupportedKey'
  /** No credential, or one that does not verify: bad token or certificate, expired, wrong audience. */
  | 'Unauthenticated'
  /** A valid credential whose pod is gone or changed: deleted, recreated (uid), moved off its site, another tenant's. */
  | 'PodMismatch'
  /** Authenticated but not allowed: no admin role in the namespace, a pod not on the agent's sites. */
  | 'Forbidden'
  /** The pod a token is asked for does not exist. */
  | 'PodNotFound'
  /** The pod exists but is not bound to a site yet: it has no identity to give. */
  | 'PodNotBound'
  /** The request body is larger than the identity API accepts. */
  | 'TooLarge'
  /** The store cannot be reached: retry. */
  | 'Unavailable'
  /** A sealed key that cannot be opened (another key-encryption key, tampered), or anything unexpected. */
  | 'Internal';

/** The Status reason (and through it the HTTP status) of every code. */
const IDENTITY_ERROR_REASON: Readonly<Record<IdentityErrorCode, StatusReason>> = {
  BadRequest: 'BadRequest',
  InvalidCsr: 'BadRequest',
  UnsupportedKey: 'BadRequest',
  Unauthenticated: 'Unauthorized',
  PodMismatch: 'Unauthorized',
  Forbidden: 'Forbidden',
  PodNotFound: 'NotFound',
  PodNotBound: 'Conflict',
  TooLarge: 'RequestEntityTooLarge',
  Unavailable: 'ServiceUnavailable',
  Internal: 'InternalError',
};

/** The one error type of the identity service; the routes answer it as a Kubernetes `Status`. */
export class IdentityError extends Error {
  override readonly name = 'IdentityError';
  constructor(
    readonly code: IdentityErrorCode,
    message: string,
  ) {
    super(message);
  }

  get reason(): StatusReason {
    return IDENTITY_ERROR_REASON[this.code];
  }

  get status(): number {
    return STATUS_CODE[this.reason];
  }

  /** The `metav1.Status` body. */
  toStatus(): Record<string, unknown> {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: this.message, reason: this.reason, code: this.status };
  }

  /** The same failure as the StatusError other APIs' handlers answer (the site API's pod token route). */
  toStatusError(): StatusError {
    return new StatusError(this.reason, this.message);
  }

  /** Any throwable as an IdentityError: store outages become Unavailable, the rest Internal (the original is logged by the caller). */
  static from(error: unknown): IdentityError {
    if (error instanceof IdentityError) return error;
    if (isStoreError(error) && error.code === 'Unavailable') return new IdentityError('Unavailable', 'the store is unavailable; retry');
    return new IdentityError('Internal', 'an unexpected error; it has been logged');
  }
}
