/**
 * The sidecar's own unseal failures: a closed set of codes with an exhaustive code → HTTP
 * status map. Failures the control plane answers (`SecretError`) and Vault failures
 * (`VaultError`) keep their own types and statuses; `unsealFailureOf` turns any of them into
 * the answer, in one place. Messages never carry a secret, a key or a token.
 */
export type UnsealErrorCode =
  /** No `content-type: application/json`. */
  | 'UnsupportedMediaType'
  /** The body is not a valid unseal request. */
  | 'InvalidRequest'
  /** The control plane could not be reached or answered something that is not the secret API's. */
  | 'Internal';

const UNSEAL_ERROR_STATUS: Readonly<Record<UnsealErrorCode, number>> = {
  UnsupportedMediaType: 415,
  InvalidRequest: 400,
  Internal: 500,
};

export class UnsealError extends Error {
  override readonly name = 'UnsealError';

  /** For `Internal`, `message` is for the log; the answer carries the platform's generic message. */
  constructor(
    readonly code: UnsealErrorCode,
    message: string,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return UNSEAL_ERROR_STATUS[this.code];
  }
}
