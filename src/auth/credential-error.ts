/**
 * Why the credential service refused a request to issue, read or revoke a credential, or why
 * a valid credential is refused where it was not issued for (`PermissionDenied`: a
 * kubeconfig's credential on a platform API). Its codes
 * are the configuration API's (gRPC) codes, so that API — which serves `api_credentials` —
 * answers them one to one (`toConfigError`); authentication failures are
 * `AuthenticationError`, never this.
 */
export type CredentialErrorCode = 'InvalidArgument' | 'PermissionDenied' | 'AlreadyExists' | 'NotFound';

export class CredentialError extends Error {
  override readonly name = 'CredentialError';
  constructor(
    readonly code: CredentialErrorCode,
    message: string,
  ) {
    super(message);
  }

  static invalid(message: string): CredentialError {
    return new CredentialError('InvalidArgument', message);
  }
}
