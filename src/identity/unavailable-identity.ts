import type { WorkloadIdentity } from './identity-extension.js';
import type { BootstrapToken, IdentityBundle } from '../site-api/identity-bundle.js';
import { IdentityError } from './identity-error.js';
import type { IdentityOperations } from './identity-service.js';

/**
 * The identity service of a server that could not open its keys at start (another
 * key-encryption key than the one that sealed them): every operation answers 503 with the
 * reason, while the rest of the server keeps serving.
 */
export class UnavailableIdentity implements IdentityOperations {
  private readonly error: IdentityError;

  constructor(reason: string) {
    this.error = new IdentityError('Unavailable', `the identity service is unavailable on this server: ${reason}`);
  }

  issueWithToken(): Promise<IdentityBundle> {
    return Promise.reject(this.error);
  }

  renew(): Promise<IdentityBundle> {
    return Promise.reject(this.error);
  }

  tokenForAdmin(): Promise<BootstrapToken> {
    return Promise.reject(this.error);
  }

  tokenForSite(): Promise<BootstrapToken> {
    return Promise.reject(this.error);
  }

  authenticatePod(): Promise<WorkloadIdentity> {
    return Promise.reject(this.error);
  }
}
