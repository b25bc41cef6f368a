import { finished } from 'node:stream/promises';
import type { Writable } from 'node:stream';
import { exitCodeStatus, failureStatus, SUCCESS_STATUS, type RemoteStatus } from './remote-status.js';
import type { AttachOptions, ExecOptions, PodStreamBackend, PodTarget, StreamIo } from './types.js';

/** An exec or attach session, whatever carries it. */
export type RemoteCommand =
  | { readonly kind: 'exec'; readonly target: PodTarget; readonly options: ExecOptions }
  | { readonly kind: 'attach'; readonly target: PodTarget; readonly options: AttachOptions };

/**
 * Runs a session on the backend and returns the status to report, after the output streams
 * have been ended and flushed — kubelet's order, which clients rely on: stdout and stderr end
 * first, then the status arrives on the error stream.
 */
export async function runRemoteCommand(command: RemoteCommand, backend: PodStreamBackend, io: StreamIo): Promise<RemoteStatus> {
  let status: RemoteStatus;
  try {
    if (command.kind === 'exec') {
      const result = await backend.exec(command.target, command.options, io);
      status = result.exitCode === 0 ? SUCCESS_STATUS : exitCodeStatus(result.exitCode, command.options.command);
    } else {
      await backend.attach(command.target, command.options, io);
      status = SUCCESS_STATUS;
    }
  } catch (error) {
    status = failureStatus(error, command.kind);
  }
  await Promise.all([endAndFlush(io.stdout), endAndFlush(io.stderr)]);
  return status;
}

/** Ends a writable (if still open) and waits until it has finished or failed. */
export async function endAndFlush(stream: Writable | undefined): Promise<void> {
  if (stream === undefined || stream.destroyed || stream.writableFinished) return;
  if (!stream.writableEnded) stream.end();
  try {
    await finished(stream, { readable: false });
  } catch {
    // the peer went away: nothing left to flush
  }
}
