import { EncodingError } from '../../secrets/encoding-type.js';
import { SecretError, UNSEAL_MESSAGES } from '../../secrets/secret-error.js';
import { VaultError } from '../../secrets/vault/vault-error.js';
import { UnsealError } from './unseal-error.js';
import type { UnsealRequest } from './unseal-request.js';

/** An unseal failure as the sidecar answers it, and what to log about it. */
export interface UnsealFailure {
  readonly status: number;
  /** The answer's text: the platform's message, or what is wrong with the request. */
  readonly message: string;
  /** The error's code (`PolicyDenied`, `SecretNotFound`, `InvalidRequest`, …) for the log. */
  readonly code: string;
  /** For internal errors: what actually happened (logged; never a secret). */
  readonly detail?: string;
}

/** The answer of an internal failure (PLATFORM-FACTS.md: "anything else"). */
export const INTERNAL_MESSAGES: Readonly<Record<UnsealRequest['type'], string>> = {
  blindfold: UNSEAL_MESSAGES.Internal,
  vault: 'Internal error while reading secret from vault, please retry again',
};

/**
 * Pure: the one place an unseal error becomes a status and a message. Control-plane failures
 * (`SecretError`) keep the control plane's status and message — the platform's table for
 * blindfold outcomes — except that its internal errors answer the platform's generic
 * message; Vault failures keep the Vault client's status (`VAULT_HTTP_STATUS`) and message;
 * a secret that is not Base64 under `EncodingBase64` is 400; the sidecar's own errors have
 * their codes' statuses; anything unexpected is 500 with the generic message.
 */
export function unsealFailureOf(error: unknown, type: UnsealRequest['type'] | undefined): UnsealFailure {
  const internal = INTERNAL_MESSAGES[type ?? 'blindfold'];
  if (error instanceof SecretError) {
    return error.code === 'Internal' ? { status: 500, message: internal, code: error.code, detail: error.message } : { status: error.httpStatus, message: error.message, code: error.code };
  }
  if (error instanceof VaultError) return { status: error.httpStatus, message: error.message, code: error.code };
  if (error instanceof EncodingError) return { status: 400, message: error.message, code: 'EncodingError' };
  if (error instanceof UnsealError) {
    return error.code === 'Internal' ? { status: error.httpStatus, message: internal, code: error.code, detail: error.message } : { status: error.httpStatus, message: error.message, code: error.code };
  }
  const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { status: 500, message: internal, code: 'Internal', detail };
}
