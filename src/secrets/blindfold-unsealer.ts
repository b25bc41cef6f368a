import type { StoredObject } from '../config/envelope.js';
import { objectKey } from '../config/keys.js';
import type { Logger } from '../observability/logger.js';
import type { KeyValue } from '../store/types.js';
import { blindfoldDecrypt } from './blindfold-decrypt.js';
import { type BlindfoldHeader, parseBlindfold } from './blindfold-format.js';
import type { BlindfoldKeyRing } from './blindfold-key-ring.js';
import { cacheTimeoutSeconds } from './cache-timeout.js';
import { clientNameOf, policyCallerOf } from './client-name.js';
import { policyIdOf } from './policy-document.js';
import { evaluatePolicy, type SecretPolicySpec } from './policy-evaluation.js';
import type { PodIdentity } from './ports.js';
import { SecretError, type SecretErrorCode } from './secret-error.js';

/** Reads configuration objects by store key (the control plane's config cache, or the store). */
export interface ConfigSource {
  get(key: string): Promise<KeyValue | undefined>;
}

export interface UnsealResult {
  readonly plaintext: Buffer;
  /** The policy's `decrypt_cache_timeout` as written, and in seconds (0: do not cache). */
  readonly decryptCacheTimeout: string | undefined;
  readonly cacheTimeoutSeconds: number;
}

export interface BlindfoldUnsealerOptions {
  readonly keys: BlindfoldKeyRing;
  readonly config: ConfigSource;
  readonly logger: Logger;
  /** Told every outcome (for metrics): `Unsealed` or the error code. Never the secret. */
  readonly onOutcome?: (outcome: 'Unsealed' | SecretErrorCode) => void;
}

/**
 * Decrypts blindfold blobs for pods, only when the blob's secret policy allows the pod.
 * The order makes every altered blob a 400 and never decides on unauthenticated data:
 * 1. the blob must parse (400) and use our algorithms (404 for other registered ones);
 * 2. a blob of another tenant is denied (403) — without touching that tenant's keys — when
 *    its header names an existing key of that tenant, else it is no blindfold blob (400);
 * 3. the caller's tenant must have keys (404) and the named version (400: a wrong key);
 * 4. when the named policy exists with the named id, it is evaluated first (403 saves a
 *    decryption); the blob is then decrypted, which authenticates the header (400 if not);
 * 5. a genuine blob whose policy is gone (or was re-created with another id) is 404.
 */
export class BlindfoldUnsealer {
  constructor(private readonly options: BlindfoldUnsealerOptions) {}

  async unseal(caller: PodIdentity, location: string): Promise<UnsealResult> {
    const context = { tenant: caller.tenant, namespace: caller.namespace, pod: caller.pod, clientName: clientNameOf(caller) };
    try {
      const result = await this.run(caller, location, context);
      this.options.onOutcome?.('Unsealed');
      return result;
    } catch (error) {
      const failure = error instanceof SecretError ? error : SecretError.unseal('Internal');
      if (!(error instanceof SecretError)) this.options.logger.error({ ...context, err: describe(error) }, 'unseal failed');
      this.options.onOutcome?.(failure.code);
      throw failure;
    }
  }

  private async run(caller: PodIdentity, location: string, context: Record<string, string>): Promise<UnsealResult> {
    const { logger, keys } = this.options;
    const blob = parseBlindfold(location);
    const { header } = blob;
    const where = { ...context, policy: `${header.policy_namespace}/${header.policy_name}`, keyVersion: header.key_version };
    if (header.tenant !== caller.tenant) {
      if ((await keys.version(header.tenant, header.key_version)) === undefined) throw SecretError.unseal('NotBlindfold');
      logger.warn({ ...where, blobTenant: header.tenant }, 'unseal denied: the secret belongs to another tenant');
      throw SecretError.unseal('PolicyDenied');
    }
    const key = await keys.privateKey(caller.tenant, header.key_version);
    if (!key.found) throw SecretError.unseal(key.reason === 'NoKeys' ? 'PolicyOrKeyNotFound' : 'NotBlindfold');
    const policy = await this.policy(header);
    if (policy !== undefined) {
      const decision = evaluatePolicy(policy.spec as unknown as SecretPolicySpec, policyCallerOf(caller));
      if (!decision.allowed) {
        logger.info({ ...where, rule: decision.rule ?? null }, 'unseal denied by the secret policy');
        throw SecretError.unseal('PolicyDenied');
      }
    }
    const plaintext = await blindfoldDecrypt(blob, key.key);
    if (policy === undefined) {
      plaintext.fill(0);
      logger.info(where, 'unseal refused: the secret policy used for encryption no longer exists');
      throw SecretError.unseal('PolicyOrKeyNotFound');
    }
    const timeout = policy.spec['decrypt_cache_timeout'] as string | undefined;
    logger.info(where, 'secret unsealed');
    return { plaintext, decryptCacheTimeout: timeout, cacheTimeoutSeconds: cacheTimeoutSeconds(timeout) };
  }

  /** The policy the header names, if it still exists with the same id. */
  private async policy(header: BlindfoldHeader): Promise<StoredObject | undefined> {
    const kv = await this.options.config.get(objectKey(header.tenant, 'secret_policy', header.policy_namespace, header.policy_name));
    if (kv === undefined) return undefined;
    const object = JSON.parse(kv.value) as StoredObject;
    return policyIdOf(object) === header.policy_id ? object : undefined;
  }
}

/** An unexpected error for the log: its kind and message, nothing it might carry. */
function describe(error: unknown): { type: string; message: string } {
  return error instanceof Error ? { type: error.name, message: error.message } : { type: typeof error, message: String(error) };
}
