import type { Duplex, Readable, Writable } from 'node:stream';

/**
 * The contracts between the pod stream endpoints (`exec`, `attach`, `portforward`, `log`) and
 * whatever runs the pods. The control plane speaks the client protocols (SPDY/3.1, WebSocket
 * channels, chunked text) and calls a `PodStreamBackend` — a site, later — with plain Node
 * streams, so a backend never sees a protocol.
 */

/** Which pod and container a stream is for. */
export interface PodTarget {
  readonly tenant: string;
  /** The platform namespace holding the virtual cluster (the one Kubernetes namespace inside it). */
  readonly namespace: string;
  readonly vk8s: string;
  readonly pod: string;
  readonly uid?: string;
  /** Resolved by the API (kube's defaulting to the only container); "" for port-forward when the pod has none. */
  readonly container: string;
  /** The platform injected its sidecar into the pod: port-forward to the sidecar's port is refused. */
  readonly sidecar?: boolean;
}

export type StreamKind = 'exec' | 'attach' | 'portforward';

export interface AttachOptions {
  readonly container: string;
  readonly stdin: boolean;
  readonly stdout: boolean;
  /** Always false with `tty` (kubelet drops stderr for terminals). */
  readonly stderr: boolean;
  readonly tty: boolean;
}

export interface ExecOptions extends AttachOptions {
  /** argv, not run through a shell. */
  readonly command: readonly string[];
}

export interface LogOptions {
  readonly container: string;
  readonly follow: boolean;
  readonly previous: boolean;
  readonly timestamps: boolean;
  readonly tailLines?: number;
  readonly sinceSeconds?: number;
  /** RFC 3339, as the client sent it (already checked). */
  readonly sinceTime?: string;
  readonly limitBytes?: number;
}

export interface TerminalSize {
  readonly width: number;
  readonly height: number;
}

/**
 * The standard streams of an exec or attach session; each is present only when the client
 * asked for it. The backend writes to `stdout`/`stderr` and may end them; when its promise
 * settles, the endpoint ends whatever is still open, then reports the outcome. `stdin` ends
 * when the client closes its input. `signal` aborts when the client goes away.
 */
export interface StreamIo {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Terminal sizes (tty sessions), in the order the client sent them. */
  readonly resize?: AsyncIterable<TerminalSize>;
  readonly signal: AbortSignal;
}

/** How a command ended: 0 is success; anything else is reported as kube's `NonZeroExitCode`. */
export interface ExitResult {
  readonly exitCode: number;
}

/**
 * What runs the pods. Failures are `StreamError`s (kube's Status shapes); any other error is
 * reported as an internal error. `admit` (optional) runs before the connection is upgraded,
 * so its refusal reaches the client as an HTTP answer, like kubelet's checks before it
 * upgrades (e.g. `container not found ("c")`).
 */
export interface PodStreamBackend {
  admit?(target: PodTarget, kind: StreamKind): Promise<void>;
  exec(target: PodTarget, options: ExecOptions, io: StreamIo): Promise<ExitResult>;
  /** kube reports no exit code for attach: the result only ends the session. */
  attach(target: PodTarget, options: AttachOptions, io: StreamIo): Promise<ExitResult>;
  /** One call per forwarded connection: a duplex to `port` inside the pod. */
  portForward(target: PodTarget, port: number): Promise<Duplex>;
  /** The container's log; with `follow` it keeps going until destroyed. */
  logs(target: PodTarget, options: LogOptions): Promise<Readable>;
}
