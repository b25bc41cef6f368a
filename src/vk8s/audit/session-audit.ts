import { randomUUID } from 'node:crypto';
import type { Principal } from '../../auth/principal.js';
import type { Clock } from '../../common/clock.js';
import type { PodStreamBackend, StreamKind } from '../streams/index.js';
import { StreamError } from '../streams/index.js';
import { AUDIT_ANNOTATIONS as A, microTime, type AuditEvent, type AuditResponseStatus, type AuditStage } from './audit-event.js';

/**
 * Where the vK8s API records its pod sessions (`exec`, `attach`, `portforward`): one
 * `ResponseStarted` event when a session is upgraded, one `ResponseComplete` when it ends or
 * is refused (denied included). `record` must not throw: a writer reports its own failures.
 */
export interface SessionAudit {
  record(event: AuditEvent): void;
}

/** What the request itself says, before anything is checked. */
export interface SessionRequestFacts {
  readonly requestURI: string;
  readonly verb: string;
  readonly kind: StreamKind;
  /** The pod's namespace and name in the path. */
  readonly namespace?: string;
  readonly pod: string;
  /** The cluster's base path: `/api/vk8s/namespaces/{namespace}/{vk8s}`. */
  readonly cluster: { readonly namespace: string; readonly vk8s: string };
  readonly query: URLSearchParams;
  readonly sourceIP?: string;
  readonly userAgent?: string;
}

/**
 * The audit of one session request, filled in as the request is checked and served; it
 * writes at most one event per stage. Times come from `clock`.
 */
export class SessionAuditTrail {
  private readonly auditID = randomUUID();
  private readonly received: string;
  private principal: Principal | undefined;
  private decision: { readonly allowed: boolean; readonly reason: string } | undefined;
  private container: string | undefined;
  private protocol: string | undefined;
  private upgradedAt: number | undefined;
  private exitCode: number | undefined;
  private error: string | undefined;
  private readonly ports = new Set<number>();
  private complete = false;

  constructor(
    private readonly audit: SessionAudit,
    private readonly clock: Clock,
    private readonly facts: SessionRequestFacts,
  ) {
    this.received = microTime(clock.rfc3339Nano());
    if (facts.kind === 'portforward' && facts.query.has('ports')) {
      for (const port of facts.query.getAll('ports').flatMap((p) => p.split(','))) if (/^\d+$/.test(port.trim())) this.ports.add(Number(port));
    }
    const container = facts.query.get('container');
    if (container !== null && container !== '') this.container = container;
  }

  /** The caller is known. */
  authenticated(principal: Principal): void {
    this.principal = principal;
  }

  /** The authorizer's decision (kube's `allow` or `forbid`) and its reason. */
  authorized(allowed: boolean, reason: string): void {
    this.decision = { allowed, reason };
  }

  /** The container the session is for, once the pod resolved it. */
  target(container: string): void {
    if (container !== '') this.container = container;
  }

  /** Refused before any upgrade: one `ResponseComplete` with the answer's code and message. */
  refused(code: number, message: string, reason?: string): void {
    this.write('ResponseComplete', { metadata: {}, code, status: 'Failure', message, ...(reason === undefined ? {} : { reason }) });
    this.complete = true;
  }

  /** The connection switched protocols: `ResponseStarted`. */
  upgraded(protocol: string): void {
    this.protocol = protocol;
    this.upgradedAt = this.clock.now().getTime();
    this.write('ResponseStarted', { metadata: {}, code: 101 });
  }

  /** The session is over (after `upgraded`): `ResponseComplete` with its duration, and the exit code when known. */
  ended(): void {
    if (this.upgradedAt === undefined) return;
    this.write('ResponseComplete', { metadata: {}, code: 101 });
    this.complete = true;
  }

  /**
   * `backend` as this session uses it, noting what the audit keeps: the command's exit code,
   * the ports forwarded, a refusal after the upgrade. What flows through is never looked at.
   */
  observe(backend: PodStreamBackend): PodStreamBackend {
    const failed = (error: unknown): never => {
      this.error = error instanceof StreamError ? error.message : 'internal error';
      throw error;
    };
    return {
      ...(backend.admit === undefined ? {} : { admit: (target, kind) => backend.admit?.(target, kind) ?? Promise.resolve() }),
      exec: (target, options, io) =>
        backend.exec(target, options, io).then((result) => {
          this.exitCode = result.exitCode;
          return result;
        }, failed),
      attach: (target, options, io) => backend.attach(target, options, io).catch(failed),
      portForward: (target, port) => {
        this.ports.add(port);
        return backend.portForward(target, port);
      },
      logs: (target, options) => backend.logs(target, options),
    };
  }

  private write(stage: AuditStage, responseStatus: AuditResponseStatus): void {
    if (this.complete) return;
    const { facts, principal } = this;
    const now = this.clock.now().getTime();
    const annotations: Record<string, string> = {
      ...(this.decision === undefined ? {} : { [A.decision]: this.decision.allowed ? 'allow' : 'forbid', [A.reason]: this.decision.reason }),
      ...(principal === undefined ? {} : { [A.tenant]: principal.tenant }),
      [A.virtualCluster]: `${facts.cluster.namespace}/${facts.cluster.vk8s}`,
      ...(this.container === undefined ? {} : { [A.container]: this.container }),
      ...(facts.kind === 'exec' ? { [A.command]: JSON.stringify(facts.query.getAll('command')) } : {}),
      ...(facts.kind === 'portforward' && this.ports.size > 0 ? { [A.ports]: [...this.ports].sort((a, b) => a - b).join(',') } : {}),
      ...(this.protocol === undefined ? {} : { [A.protocol]: this.protocol }),
      ...(stage === 'ResponseComplete' && this.upgradedAt !== undefined ? { [A.duration]: `${(now - this.upgradedAt) / 1000}s` } : {}),
      ...(stage === 'ResponseComplete' && this.exitCode !== undefined ? { [A.exitCode]: String(this.exitCode) } : {}),
      ...(stage === 'ResponseComplete' && this.error !== undefined ? { [A.error]: this.error } : {}),
    };
    this.audit.record({
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: this.auditID,
      stage,
      requestURI: facts.requestURI,
      verb: facts.verb,
      user: principal === undefined ? { username: '' } : { username: principal.user, extra: { 'edgeplane.io/tenant': [principal.tenant], 'edgeplane.io/credential': [principal.credential] } },
      sourceIPs: facts.sourceIP === undefined ? [] : [facts.sourceIP],
      ...(facts.userAgent === undefined ? {} : { userAgent: facts.userAgent }),
      objectRef: { resource: 'pods', ...(facts.namespace === undefined ? {} : { namespace: facts.namespace }), name: facts.pod, apiVersion: 'v1', subresource: facts.kind },
      responseStatus,
      requestReceivedTimestamp: this.received,
      stageTimestamp: microTime(this.clock.rfc3339Nano()),
      annotations,
    });
  }
}
