import { CredentialError } from '../auth/credential-error.js';
import { isStoreError } from '../store/errors.js';

/**
 * The configuration API's errors: gRPC status codes, answered as grpc-gateway does —
 * `{"code": <gRPC code>, "details": [], "message": "…"}` with the HTTP status of the code.
 */
export type ConfigErrorCode =
  | 'InvalidArgument'
  | 'DeadlineExceeded'
  | 'NotFound'
  | 'AlreadyExists'
  | 'PermissionDenied'
  | 'ResourceExhausted'
  | 'FailedPrecondition'
  | 'Aborted'
  | 'Unimplemented'
  | 'Internal'
  | 'Unavailable'
  | 'Unauthenticated';

const GRPC_CODE: Readonly<Record<ConfigErrorCode, number>> = {
  InvalidArgument: 3,
  DeadlineExceeded: 4,
  NotFound: 5,
  AlreadyExists: 6,
  PermissionDenied: 7,
  ResourceExhausted: 8,
  FailedPrecondition: 9,
  Aborted: 10,
  Unimplemented: 12,
  Internal: 13,
  Unavailable: 14,
  Unauthenticated: 16,
};

/** The HTTP status of every code (grpc-gateway's mapping; 405 for an unsupported method). */
const HTTP_STATUS: Readonly<Record<ConfigErrorCode, number>> = {
  InvalidArgument: 400,
  DeadlineExceeded: 504,
  NotFound: 404,
  AlreadyExists: 409,
  PermissionDenied: 403,
  ResourceExhausted: 429,
  FailedPrecondition: 400,
  Aborted: 409,
  Unimplemented: 405,
  Internal: 500,
  Unavailable: 503,
  Unauthenticated: 401,
};

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(
    readonly code: ConfigErrorCode,
    message: string,
    /** The HTTP status when it is not the code's own (507 for a full storage). */
    private readonly status?: number,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return this.status ?? HTTP_STATUS[this.code];
  }

  toBody(): { code: number; details: unknown[]; message: string } {
    return { code: GRPC_CODE[this.code], details: [], message: this.message };
  }

  static invalid(message: string): ConfigError {
    return new ConfigError('InvalidArgument', message);
  }
  static notFound(kind: string, name: string, namespace: string): ConfigError {
    return new ConfigError('NotFound', `${kind} ${name} does not exist in namespace ${namespace}`);
  }
}

/** Maps anything thrown below the HTTP layer to a ConfigError, once. */
export function toConfigError(error: unknown): ConfigError {
  if (error instanceof ConfigError) return error;
  if (error instanceof CredentialError) return new ConfigError(error.code, error.message);
  if (isStoreError(error)) {
    switch (error.code) {
      case 'KeyExists':
        return new ConfigError('AlreadyExists', 'Object already exists');
      case 'KeyNotFound':
        return new ConfigError('NotFound', 'Object does not exist');
      case 'Conflict':
        return new ConfigError('Aborted', 'the object was modified concurrently; read it again and retry');
      case 'InvalidArgument':
        return new ConfigError('InvalidArgument', error.message);
      case 'Unavailable':
        // gRPC's RESOURCE_EXHAUSTED is defined for "the entire file system is out of space"; 507,
        // not grpc-gateway's 429, since slowing down does not help until space is freed (docs/ARCHITECTURE.md).
        if (error.details.outOfSpace !== undefined) {
          return new ConfigError('ResourceExhausted', `the storage is full: nothing was written; retry once space is freed (${error.details.outOfSpace})`, 507);
        }
        return new ConfigError('Unavailable', 'the store is unavailable; retry later');
      case 'Compacted':
      case 'LeaseNotFound':
        return new ConfigError('Internal', 'internal error');
    }
  }
  return new ConfigError('Internal', 'internal error');
}
