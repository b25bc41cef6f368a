import type { Duplex, Readable, Writable } from 'node:stream';
import type { PodRef } from './site-api-types.js';

/**
 * The pod streams a site serves through its tunnel (docs/TUNNEL.md): what the control plane
 * asks of a site's runtime for `kubectl logs`, `exec`, `attach`, `cp` and `port-forward`.
 * The control plane speaks the client protocols; the tunnel carries plain bytes; a runtime
 * sees only Node streams.
 */

/** Which pod (and container) a stream is for; `uid` pins the incarnation. */
export interface PodStreamTarget extends PodRef {
  /** The site the pod is bound to (its `svc.io/siteName`). */
  readonly site: string;
  /** Empty for port-forward. */
  readonly container: string;
}

export interface SiteAttachOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  /** Always false with `tty` (kubelet drops stderr for terminals). */
  readonly stderr: boolean;
  readonly tty: boolean;
}

export interface SiteExecOptions extends SiteAttachOptions {
  /** argv, not run through a shell. */
  readonly command: readonly string[];
}

export interface SiteLogOptions {
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly sinceSeconds?: number;
  /** RFC 3339. */
  readonly sinceTime?: string;
  readonly limitBytes?: number;
}

export interface SiteTerminalSize {
  readonly width: number;
  readonly height: number;
}

/**
 * The standard streams of an exec or attach session, each present only when asked for.
 * The runtime writes to `stdout`/`stderr` (it need not end them); `stdin` ends when the
 * client closes its input; `signal` aborts when the client or the tunnel goes away, and the
 * runtime then stops what it started for the session (an exec's process is killed).
 */
export interface SiteStreamIo {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  readonly resize?: AsyncIterable<SiteTerminalSize>;
  readonly signal: AbortSignal;
}

/**
 * A refusal a site sends back, as kubelet answers (plain text with an HTTP code: 404 for
 * what is not there, 400 for a bad request, 500 otherwise). kubectl prints
 * `error: unable to upgrade connection: <message>` for one before the upgrade.
 */
export class SiteStreamError extends Error {
  override readonly name = 'SiteStreamError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }

  /** kubelet, when the container is not running: `container not found ("c")`. */
  static containerNotFound(container: string): SiteStreamError {
    return new SiteStreamError(500, `container not found (${JSON.stringify(container)})`);
  }

  /** kubelet, when the pod has no sandbox on the node: `pod not found ("name_namespace")`. */
  static podNotFound(pod: string, namespace: string): SiteStreamError {
    return new SiteStreamError(500, `pod not found (${JSON.stringify(`${pod}_${namespace}`)})`);
  }
}

/**
 * What a site's runtime serves. Failures are {@link SiteStreamError}s; anything else is
 * reported as an internal error of the site.
 */
export interface PodStreams {
  /** Resolves with the command's exit code once it ended. */
  exec(target: PodStreamTarget, options: SiteExecOptions, io: SiteStreamIo): Promise<number>;
  /** Resolves when the session ends (the container exited, or the client left). */
  attach(target: PodStreamTarget, options: SiteAttachOptions, io: SiteStreamIo): Promise<void>;
  /** One call per forwarded connection: a connected duplex to `port` inside the pod. */
  portForward(target: PodStreamTarget, port: number): Promise<Duplex>;
  /** The container's log as kubelet serves it; with `follow` it keeps going until destroyed. */
  logs(target: PodStreamTarget, options: SiteLogOptions): Promise<Readable>;
}
