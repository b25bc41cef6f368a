import { StreamError } from './stream-error.js';
import type { ChannelProtocol } from './protocols.js';

/**
 * The outcome of an exec or attach session as kubelet writes it on the error stream: a
 * `metav1.Status` without kind/apiVersion (protocol v4+), or only its message (v1–v3, and
 * nothing on success).
 */
export interface RemoteStatus {
  readonly metadata: Record<string, never>;
  readonly status: 'Success' | 'Failure';
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly causes: ReadonlyArray<{ readonly reason?: string; readonly message: string; readonly field?: string }> };
  readonly code?: number;
}

export const SUCCESS_STATUS: RemoteStatus = { metadata: {}, status: 'Success' };

/**
 * A non-zero exit: reason `NonZeroExitCode` with an `ExitCode` cause; client-go turns it into
 * `command terminated with exit code <n>` and kubectl exits with that code.
 */
export function exitCodeStatus(exitCode: number, command: readonly string[]): RemoteStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exitCode}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(exitCode) }] },
  };
}

/** apimachinery's `NewInternalError`: kubectl prints `error: Internal error occurred: <message>`. */
function internalErrorStatus(message: string): RemoteStatus {
  return {
    metadata: {},
    status: 'Failure',
    message: `Internal error occurred: ${message}`,
    reason: 'InternalError',
    details: { causes: [{ message }] },
    code: 500,
  };
}

/**
 * The status for a backend failure: a Status-shaped `StreamError` as it is, anything else as
 * kubelet reports it (`error executing command in container: …`, `error attaching to container: …`).
 */
export function failureStatus(error: unknown, kind: 'exec' | 'attach'): RemoteStatus {
  if (error instanceof StreamError && error.status !== undefined) {
    const status = error.status.toStatus();
    const { kind: _kind, apiVersion: _apiVersion, ...rest } = status;
    return { ...rest, metadata: {}, status: 'Failure' };
  }
  const message = error instanceof Error ? error.message : String(error);
  return internalErrorStatus(kind === 'exec' ? `error executing command in container: ${message}` : `error attaching to container: ${message}`);
}

/** The bytes for the error stream, or null when nothing is written (success before v4). */
export function encodeStatus(status: RemoteStatus, protocol: ChannelProtocol): Buffer | null {
  if (protocol.version >= 4) return Buffer.from(JSON.stringify(status));
  if (status.status === 'Success') return null;
  return Buffer.from(status.message ?? '');
}
