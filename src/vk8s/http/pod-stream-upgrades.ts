import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError } from '../../apimachinery/errors/status-error.js';
import { handlePodUpgrade, podStreamTarget, StreamError, type PodTarget, type StreamKind } from '../streams/index.js';
import { refuseUpgrade } from '../streams/raw-answer.js';
import { roleIn } from '../../auth/authorize.js';
import type { Clock } from '../../common/clock.js';
import { systemClock } from '../../common/clock.js';
import { SessionAuditTrail, type SessionAudit } from '../audit/session-audit.js';
import { authenticateCaller, clusterContextFor, type ClusterAccessDependencies } from './cluster-access.js';
import { isSessionKind, podScopeOf, readPod, type PodStreamDependencies } from './pod-stream-requests.js';
import { parseRequestInfo, type RequestInfo } from './request-info.js';
import { admitResourceRequest } from './resource-admission.js';

/** A listener for the HTTPS server's `upgrade` event. */
export type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface PodUpgradeDependencies extends ClusterAccessDependencies, PodStreamDependencies {
  /** Where upgrade requests for anything but a pod session go (the ordinary routes). */
  readonly fallback: UpgradeListener;
  /** Where every session request is recorded, refused ones included (none when unset). */
  readonly audit?: SessionAudit;
  readonly clock?: Clock;
}

export interface PodUpgradeListener {
  readonly listener: UpgradeListener;
  /** Ends every session in progress (the server is stopping). */
  closeAll(): void;
}

const MOUNT = /^\/api\/vk8s\/namespaces\/([^/]+)\/([^/]+)(\/.*)$/;

interface SessionRequest {
  readonly cluster: { readonly namespace: string; readonly vk8s: string };
  readonly info: RequestInfo & { readonly subresource: StreamKind; readonly name: string };
  readonly query: URLSearchParams;
}

/**
 * `exec`, `attach` and `portforward` of a cluster's pods
 * (`/api/vk8s/namespaces/{ns}/{vk8s}/api/v1/namespaces/{podns}/pods/{name}/{kind}`) arrive as
 * HTTP upgrades (SPDY/3.1 POSTs, WebSocket GETs), which the routes never see. Each goes
 * through what a route would check — `resolveCluster` (401, 403, 404), `admitResourceRequest`
 * (the namespace, the subresource and verb, write access) — then the pod (404), its container
 * and node (400), and is handed to `handlePodUpgrade`. Refusals before the upgrade are
 * `metav1.Status` answers written on the socket, which is then closed. Any other upgrade
 * request goes to `fallback`. With `audit`, each session request leaves an audit trail
 * ({@link SessionAuditTrail}): who, which pod, container, command or ports, the decision,
 * the protocol, and when and how it ended.
 */
export function podUpgradeListener(deps: PodUpgradeDependencies): PodUpgradeListener {
  const sessions = new Set<Duplex>();
  const listener: UpgradeListener = (request, socket, head) => {
    // Node no longer watches an upgraded socket for errors (resets while the request is checked).
    socket.on('error', (error) => deps.logger?.debug({ err: error, url: request.url }, 'upgrade request socket error'));
    const session = sessionRequest(request);
    if (session === undefined) return deps.fallback(request, socket, head);
    sessions.add(socket);
    socket.once('close', () => sessions.delete(socket));
    void serveSession(deps, session, request, socket, head);
  };
  return {
    listener,
    closeAll: () => {
      for (const socket of sessions) socket.destroy();
    },
  };
}

function sessionRequest(request: IncomingMessage): SessionRequest | undefined {
  const url = new URL(request.url ?? '/', 'https://localhost');
  const match = MOUNT.exec(url.pathname);
  if (match === null) return undefined;
  let info: RequestInfo | undefined;
  let cluster: SessionRequest['cluster'];
  try {
    cluster = { namespace: decodeURIComponent(match[1] ?? ''), vk8s: decodeURIComponent(match[2] ?? '') };
    info = parseRequestInfo(request.method ?? 'GET', match[3] ?? '', { watch: url.searchParams.get('watch') ?? undefined });
  } catch {
    return undefined;
  }
  if (info === undefined || info.group !== '' || info.resource !== 'pods' || info.name === undefined || !isSessionKind(info.subresource)) return undefined;
  return { cluster, info: { ...info, subresource: info.subresource, name: info.name }, query: url.searchParams };
}

async function serveSession(deps: PodUpgradeDependencies, session: SessionRequest, request: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const kind = session.info.subresource;
  const trail = deps.audit === undefined ? undefined : auditTrail(deps.audit, deps.clock ?? systemClock(), session, request);
  let target: PodTarget | null;
  try {
    const principal = await authenticateCaller(deps, request.headers, request.socket);
    trail?.authenticated(principal);
    const context = await clusterContextFor(deps, principal, session.cluster);
    admitResourceRequest(context, session.info);
    trail?.authorized(true, `user ${principal.user} has role ${roleIn(principal, context.cluster.namespace) ?? 'none'} in namespace ${context.cluster.namespace}`);
    const pod = await readPod(deps.storage, context, session.info.name);
    target = podStreamTarget(pod, session.query.get('container') ?? undefined, podScopeOf(context), kind);
    // Only logs of unscheduled pods have no target; sessions are refused above.
    if (target === null) throw StatusError.badRequest(`pod ${session.info.name} does not have a host assigned`);
    trail?.target(target.container);
  } catch (error) {
    if (error instanceof StatusError || error instanceof StreamError) {
      if (error instanceof StatusError && error.code === 403) trail?.authorized(false, error.message);
      trail?.refused(error.code, error.message, error instanceof StatusError ? error.reason : undefined);
      return refuseUpgrade(socket, error);
    }
    deps.logger?.error({ err: error, url: request.url }, 'virtual cluster API request failed');
    trail?.refused(500, 'an unexpected error; it has been logged', 'InternalError');
    return refuseUpgrade(socket, StatusError.internal('an unexpected error; it has been logged'));
  }
  await handlePodUpgrade(request, socket, head, { kind, target, query: session.query }, trail?.observe(deps.backend) ?? deps.backend, {
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
    ...(deps.timing === undefined ? {} : { timing: deps.timing }),
    ...(trail === undefined ? {} : { onOutcome: (outcome) => (outcome.upgraded ? trail.upgraded(outcome.protocol) : trail.refused(outcome.code, outcome.message)) }),
  });
  trail?.ended();
}

function auditTrail(audit: SessionAudit, clock: Clock, session: SessionRequest, request: IncomingMessage): SessionAuditTrail {
  const userAgent = request.headers['user-agent'];
  return new SessionAuditTrail(audit, clock, {
    requestURI: request.url ?? '',
    verb: session.info.verb,
    kind: session.info.subresource,
    ...(session.info.namespace === undefined ? {} : { namespace: session.info.namespace }),
    pod: session.info.name,
    cluster: session.cluster,
    query: session.query,
    ...(request.socket.remoteAddress === undefined ? {} : { sourceIP: request.socket.remoteAddress }),
    ...(userAgent === undefined ? {} : { userAgent }),
  });
}
