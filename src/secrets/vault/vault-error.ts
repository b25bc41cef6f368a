/**
 * The Vault client's errors: a closed set of codes with an exhaustive code → HTTP status map
 * (the status the sidecar answers). Messages name the provider, endpoint, location, key or
 * version and repeat Vault's own error texts; never a token, secret_id or secret value.
 */
export type VaultErrorCode =
  | 'ProviderNotFound'
  | 'LoginRefused'
  | 'PermissionDenied'
  | 'SecretNotFound'
  | 'KeyNotFound'
  | 'VersionNotFound'
  | 'InvalidRequest'
  | 'Unreachable'
  | 'VaultUnavailable'
  | 'TlsFailure'
  | 'BadResponse';

const VAULT_HTTP_STATUS: Readonly<Record<VaultErrorCode, number>> = {
  ProviderNotFound: 404,
  LoginRefused: 403,
  PermissionDenied: 403,
  SecretNotFound: 404,
  KeyNotFound: 404,
  VersionNotFound: 404,
  InvalidRequest: 400,
  Unreachable: 503,
  VaultUnavailable: 503,
  TlsFailure: 502,
  BadResponse: 502,
};

export class VaultError extends Error {
  override readonly name = 'VaultError';

  constructor(
    readonly code: VaultErrorCode,
    message: string,
  ) {
    super(message);
  }

  get httpStatus(): number {
    return VAULT_HTTP_STATUS[this.code];
  }
}
