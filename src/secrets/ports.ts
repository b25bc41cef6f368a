import type { WorkloadIdentity } from '../identity/identity-extension.js';

/**
 * What the secret service needs from the identity service (`src/identity/`): the composition
 * root plugs the identity service's implementations in; tests plug in their own.
 */
export type { KeySealer } from '../identity/key-sealer.js';

/** Who a pod is, as its client certificate (issued by the identity service) says. */
export type PodIdentity = Omit<WorkloadIdentity, 'v'>;

/**
 * Verifies the TLS peer's client certificate (a pod client certificate issued by the identity
 * service: tenant CA signature, validity now, EKU clientAuth) and returns the identity from
 * its extension; throws (the identity service's 401 error) otherwise. `socket` is
 * `request.raw.socket`.
 */
export interface PodCertificateVerifier {
  verify(socket: unknown): Promise<PodIdentity>;
}
