/**
 * The secret service's errors: one closed set of codes with an exhaustive code → HTTP status
 * map. The unseal codes carry the platform's fixed messages (PLATFORM-FACTS.md, "Sidecar"),
 * so the sidecar forwards status and message unchanged. No message ever contains a secret,
 * a key or a token: callers pass only names, versions and reasons.
 *
 * Body (the configuration API's grpc-gateway shape, plus the code's name):
 * `{"code": <gRPC code>, "details": [], "message": "…", "reason": "<SecretErrorCode>"}`.
 */
export type SecretErrorCode =
  // Unseal outcomes (the sidecar's table).
  | 'Tampered'
  | 'NotBlindfold'
  | 'UnknownAlgorithm'
  | 'PolicyOrKeyNotFound'
  | 'PolicyDenied'
  | 'Internal'
  // Everything else the secret endpoints answer.
  | 'InvalidArgument'
  | 'Unauthenticated'
  | 'PermissionDenied'
  | 'NotFound'
  | 'ProviderNotFound'
  | 'MethodNotAllowed'
  | 'Unavailable';

export const SECRET_HTTP_STATUS: Readonly<Record<SecretErrorCode, number>> = {
  Tampered: 400,
  NotBlindfold: 400,
  UnknownAlgorithm: 404,
  PolicyOrKeyNotFound: 404,
  PolicyDenied: 403,
  Internal: 500,
  InvalidArgument: 400,
  Unauthenticated: 401,
  PermissionDenied: 403,
  NotFound: 404,
  ProviderNotFound: 404,
  MethodNotAllowed: 405,
  Unavailable: 503,
};

const GRPC_CODE: Readonly<Record<SecretErrorCode, number>> = {
  Tampered: 3,
  NotBlindfold: 3,
  UnknownAlgorithm: 5,
  PolicyOrKeyNotFound: 5,
  PolicyDenied: 7,
  Internal: 13,
  InvalidArgument: 3,
  Unauthenticated: 16,
  PermissionDenied: 7,
  NotFound: 5,
  ProviderNotFound: 5,
  MethodNotAllowed: 12,
  Unavailable: 14,
};

/** The platform's messages for unseal failures (the sidecar answers exactly these). */
export const UNSEAL_MESSAGES = {
  Tampered: 'Make sure encrypted secret is secured using blindfold and encrypted secret is not tempered with',
  NotBlindfold: 'Invalid blindfold secret - make sure encrypted secret is blindfold secret and encrypted secret is not tempered with',
  UnknownAlgorithm: 'Invalid symmetric algorithms used in blindfold encrypted secret, only RSA-OAEP-256 with A256GCM is supported',
  PolicyOrKeyNotFound: 'Error decrypting blindfold secret - make sure if tenant is registered and policy used for encryption still exists',
  PolicyDenied: 'Error decrypting blindfold secret, make sure policy used for encryption is correct',
  Internal: 'Internal error while unsealing blindfold secret, please retry again',
} as const satisfies Partial<Record<SecretErrorCode, string>>;

export type UnsealErrorCode = keyof typeof UNSEAL_MESSAGES;

export class SecretError extends Error {
  override readonly name = 'SecretError';

  constructor(
    readonly code: SecretErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** An unseal failure with the platform's fixed message. */
  static unseal(code: UnsealErrorCode): SecretError {
    return new SecretError(code, UNSEAL_MESSAGES[code]);
  }

  get httpStatus(): number {
    return SECRET_HTTP_STATUS[this.code];
  }

  toBody(): { code: number; details: unknown[]; message: string; reason: SecretErrorCode } {
    return { code: GRPC_CODE[this.code], details: [], message: this.message, reason: this.code };
  }
}
