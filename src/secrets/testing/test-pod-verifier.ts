import { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import type { PodCertificateVerifier, PodIdentity } from '../ports.js';

/**
 * A stand-in for the identity service's PodCertificateVerifier, for tests of the secret API:
 * it knows the pods by their certificate's SHA-256 fingerprint (registered by the test) and
 * does no chain validation. Production verifies the tenant CA's signature and reads the
 * identity from the certificate's extension.
 */
export function testPodCertificateVerifier(): PodCertificateVerifier & { register(certificatePem: string, identity: PodIdentity): void } {
  const pods = new Map<string, PodIdentity>();
  return {
    register(certificatePem, identity) {
      pods.set(new X509Certificate(certificatePem).fingerprint256, identity);
    },
    verify(socket) {
      return Promise.resolve().then(() => identityOf(pods, socket));
    },
  };
}

function identityOf(pods: ReadonlyMap<string, PodIdentity>, socket: unknown): PodIdentity {
  const peer = typeof (socket as Partial<TLSSocket>).getPeerCertificate === 'function' ? (socket as TLSSocket).getPeerCertificate() : undefined;
  if (peer === undefined || peer.fingerprint256 === undefined) throw new Error('no client certificate was presented');
  const identity = pods.get(peer.fingerprint256);
  if (identity === undefined) throw new Error('the client certificate is not a pod certificate');
  return identity;
}
