import type { IncomingHttpHeaders } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { CredentialError } from './credential-error.js';
import { AuthenticationError, type CertificatePrincipal, type CredentialService } from './credentials.js';
import type { Principal } from './principal.js';

const SCHEMES = /^(APIToken|Bearer)\s+(\S+)\s*$/i;

/** Where a TLS 1.3 connection keeps the serial of the client certificate TLS verified. */
const VERIFIED_SERIAL = Symbol('edgeplane.verifiedClientCertificateSerial');

/**
 * The caller of a platform API (configuration, web, secret, identity, site), from
 * `Authorization: APIToken <token>` (or `Bearer <token>`), else from a client certificate that
 * TLS verified against the platform CA. Throws {@link AuthenticationError} with the reason
 * (the APIs answer 401), and {@link CredentialError} `PermissionDenied` for a kubeconfig's
 * credential (the APIs answer 403): it was issued for one virtual cluster and works only on
 * that cluster's Kubernetes API ({@link authenticateClusterRequest}), whatever roles its
 * issuer held.
 */
export async function authenticateRequest(credentials: CredentialService, headers: IncomingHttpHeaders, socket: unknown): Promise<Principal> {
  const principal = await authenticateClusterRequest(credentials, headers, socket);
  const bound = principal.virtualK8s;
  if (bound !== undefined) {
    throw new CredentialError(
      'PermissionDenied',
      `credential ${principal.credential} is a kubeconfig for virtual cluster ${bound.namespace}/${bound.name}: it is accepted only by that cluster's Kubernetes API`,
    );
  }
  return principal;
}

/**
 * The caller of a virtual cluster's Kubernetes API: as {@link authenticateRequest}, and a
 * kubeconfig's credential too, with the cluster it is bound to (`virtualK8s`), which the
 * caller must check against the cluster asked for.
 */
export async function authenticateClusterRequest(credentials: CredentialService, headers: IncomingHttpHeaders, socket: unknown): Promise<CertificatePrincipal> {
  const authorization = headers.authorization;
  if (authorization !== undefined) {
    const match = SCHEMES.exec(authorization);
    if (match === null) throw new AuthenticationError('the Authorization header must be "APIToken <token>" or "Bearer <token>"');
    return credentials.authenticateToken(match[2] ?? '');
  }
  const tls = socket as Partial<TLSSocket> & { [VERIFIED_SERIAL]?: string };
  const known = tls[VERIFIED_SERIAL];
  if (known !== undefined) return credentials.authenticateCertificate(known);
  if (tls.authorized === true && typeof tls.getPeerCertificate === 'function') {
    const certificate = tls.getPeerCertificate();
    if (certificate.serialNumber !== undefined && certificate.serialNumber !== '') {
      // TLS 1.3 has no renegotiation: the connection keeps this certificate, so later requests
      // on it skip getPeerCertificate (tens of microseconds: it builds the whole certificate object).
      if (tls.getProtocol?.() === 'TLSv1.3') tls[VERIFIED_SERIAL] = certificate.serialNumber;
      return credentials.authenticateCertificate(certificate.serialNumber);
    }
  }
  if (tls.authorizationError !== undefined && tls.authorizationError !== null && typeof tls.getPeerCertificate === 'function' && Object.keys(tls.getPeerCertificate()).length > 0) {
    throw new AuthenticationError(`the client certificate was not accepted: ${String(tls.authorizationError)}`);
  }
  throw new AuthenticationError('authentication required: send "Authorization: APIToken <token>" or a client certificate issued by the platform CA');
}
