import { CredentialError } from '../../auth/credential-error.js';
import { AuthenticationError } from '../../auth/credentials.js';
import { ConfigError, type ConfigErrorCode } from '../../config/errors.js';
import { isStoreError } from '../../store/errors.js';
import { SecretError, type SecretErrorCode } from '../secret-error.js';

const FROM_CONFIG: Readonly<Record<ConfigErrorCode, SecretErrorCode>> = {
  InvalidArgument: 'InvalidArgument',
  DeadlineExceeded: 'Unavailable',
  NotFound: 'NotFound',
  AlreadyExists: 'InvalidArgument',
  PermissionDenied: 'PermissionDenied',
  ResourceExhausted: 'Unavailable',
  FailedPrecondition: 'InvalidArgument',
  Aborted: 'Unavailable',
  Unimplemented: 'MethodNotAllowed',
  Internal: 'Internal',
  Unavailable: 'Unavailable',
  Unauthenticated: 'Unauthenticated',
};

/**
 * Maps anything a secret endpoint throws to a SecretError, once: the configuration API's
 * errors (authorization, missing namespaces and policies) keep their meaning; store
 * unavailability is 503; everything else is Internal, with the generic message.
 */
export function toSecretError(error: unknown): SecretError {
  if (error instanceof SecretError) return error;
  if (error instanceof AuthenticationError) return new SecretError('Unauthenticated', error.message);
  if (error instanceof CredentialError) return new SecretError(FROM_CONFIG[error.code], error.message);
  if (error instanceof ConfigError) {
    const code = FROM_CONFIG[error.code];
    return code === 'Internal' ? new SecretError('Internal', 'internal error') : new SecretError(code, error.message);
  }
  if (isStoreError(error, 'Unavailable')) return new SecretError('Unavailable', 'the store is unavailable; retry later');
  return new SecretError('Internal', 'internal error');
}
