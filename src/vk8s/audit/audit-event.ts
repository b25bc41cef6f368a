/**
 * kube-apiserver's audit record (`audit.k8s.io/v1` Event, as `--audit-log-path` writes them
 * one JSON object a line), as far as the pod sessions of the vK8s API fill it. Level
 * `Metadata`: who, what, when and how it ended — never a request or response body, nor
 * anything a session carries.
 */
export interface AuditEvent {
  readonly kind: 'Event';
  readonly apiVersion: 'audit.k8s.io/v1';
  readonly level: 'Metadata';
  /** One per request: both stages of a session share it. */
  readonly auditID: string;
  /** `ResponseStarted` once the connection is upgraded; `ResponseComplete` when the session ended or the request was refused. */
  readonly stage: AuditStage;
  readonly requestURI: string;
  readonly verb: string;
  /** Empty `username` when the caller was not authenticated. */
  readonly user: AuditUser;
  readonly sourceIPs: readonly string[];
  readonly userAgent?: string;
  readonly objectRef: AuditObjectRef;
  readonly responseStatus: AuditResponseStatus;
  /** metav1.MicroTime: RFC 3339 with six fraction digits. */
  readonly requestReceivedTimestamp: string;
  readonly stageTimestamp: string;
  readonly annotations: Readonly<Record<string, string>>;
}

export type AuditStage = 'ResponseStarted' | 'ResponseComplete';

interface AuditUser {
  readonly username: string;
  /** `edgeplane.io/tenant` and `edgeplane.io/credential` (the credential's name). */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

interface AuditObjectRef {
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly apiVersion: string;
  readonly subresource?: string;
}

/** A metav1.Status as the audit keeps it: the code, and for failures their message and reason. */
export interface AuditResponseStatus {
  readonly metadata: Record<string, never>;
  readonly code: number;
  readonly status?: 'Failure';
  readonly message?: string;
  readonly reason?: string;
}

/** The annotations kube's authorizer adds, and Edgeplane's own for sessions. */
export const AUDIT_ANNOTATIONS = {
  decision: 'authorization.k8s.io/decision',
  reason: 'authorization.k8s.io/reason',
  tenant: 'edgeplane.io/tenant',
  virtualCluster: 'edgeplane.io/virtual-cluster',
  container: 'edgeplane.io/container',
  /** exec: the argv as a JSON array. */
  command: 'edgeplane.io/command',
  /** portforward: the ports asked for (WebSocket) or forwarded so far (SPDY), comma-separated. */
  ports: 'edgeplane.io/ports',
  /** `SPDY/3.1+<protocol>` or `websocket+<subprotocol>`. */
  protocol: 'edgeplane.io/protocol',
  /** From the upgrade to the end, as a Go duration (`1.5s`). */
  duration: 'edgeplane.io/duration',
  /** exec: how the command ended, when the runtime said. */
  exitCode: 'edgeplane.io/exit-code',
  /** Why a session that had started failed (the runtime's refusal), never its content. */
  error: 'edgeplane.io/error',
} as const;

/** metav1.MicroTime's text from an RFC 3339 time with nanoseconds (`Clock.rfc3339Nano`). */
export function microTime(rfc3339Nano: string): string {
  return rfc3339Nano.replace(/\.(\d{6})\d*Z$/, '.$1Z').replace(/(:\d{2})Z$/, '$1.000000Z');
}
