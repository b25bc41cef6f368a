import type { X509Certificate } from 'node:crypto';
import type { TLSSocket } from 'node:tls';

/** The TLS client certificate of a request's socket (TLS only asked for it; nothing verified there). */
export function peerCertificateOf(socket: unknown): X509Certificate | undefined {
  const tls = socket as Partial<TLSSocket>;
  return typeof tls.getPeerX509Certificate === 'function' ? tls.getPeerX509Certificate() : undefined;
}
