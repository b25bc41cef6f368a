import type { ResolvedProvider } from '../../secrets/resolved-provider.js';
import type { IdentityMaterial } from '../identity-material.js';

/** A blindfold secret the control plane decrypted for the pod. */
export interface UnsealedSecret {
  readonly plaintext: Buffer;
  /** How long the sidecar may keep it: the secret policy's `decrypt_cache_timeout` in seconds (0: not at all). */
  readonly cacheTimeoutSeconds: number;
}

/**
 * The control plane's secret API as the sidecar uses it, authenticated by the pod's current
 * client certificate (`identity`). Failures are `SecretError`s the control plane answered
 * (status and message to forward) or `UnsealError('Internal')` when it could not be asked.
 */
export interface PlatformSecrets {
  /** `POST /api/secret_management/v1/unseal`. */
  unseal(location: string, identity: IdentityMaterial): Promise<UnsealedSecret>;
  /** `GET /api/secret_management/v1/providers/{name}`: the secret_management_access object with its credentials unsealed for the pod. */
  provider(name: string, identity: IdentityMaterial): Promise<ResolvedProvider>;
  /** Closes the connections. */
  close(): void;
}
