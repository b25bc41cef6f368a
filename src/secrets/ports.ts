/**
 * What the secret service needs from the identity service (issue 6), as that service exports
 * it (`src/identity/pod-identity.ts`, `src/identity/key-sealer.ts`). The shapes are copied
 * here exactly so the secrets code builds before the identity service is merged; the
 * composition root plugs the identity service's implementations in.
 */

/** Who a pod is, as its client certificate (issued by the identity service) says. */
export interface PodIdentity {
  readonly tenant: string;
  readonly namespace: string;
  readonly vk8s: string;
  readonly site: string;
  readonly pod: string;
  readonly podUid: string;
  readonly serviceAccount: string;
  readonly labels: Readonly<Record<string, string>>;
}

/**
 * Verifies the TLS peer's client certificate (a pod client certificate issued by the identity
 * service: tenant CA signature, validity now, EKU clientAuth) and returns the identity from
 * its extension; throws (the identity service's 401 error) otherwise. `socket` is
 * `request.raw.socket`.
 */
export interface PodCertificateVerifier {
  verify(socket: unknown): Promise<PodIdentity>;
}

/** AES-256-GCM under the platform's key-encryption key; `aad` binds the purpose (the store key). */
export interface KeySealer {
  seal(plaintext: Buffer, aad: string): string;
  open(sealed: string, aad: string): Buffer;
}
