import { SITE_STATUS_ANNOTATION } from '../../site-api/site-model.js';
import { sum, type RsView } from './replica-set-view.js';
import { conditionOf, newCondition, REASONS, removeCondition, setCondition, type DeploymentCondition } from './deployment-conditions.js';
import { maxUnavailableOf, type RolloutStrategy } from './rollout-math.js';
import { metav1Time } from '../../apimachinery/meta-time.js';

/** One site's ReplicaSets of a Deployment. */
export interface SiteShare {
  readonly site: string;
  /** Whether the Deployment is placed on the site now (else its ReplicaSets are draining). */
  readonly placed: boolean;
  readonly newRS?: RsView;
  readonly oldRSs: readonly RsView[];
  /** Set while the site is offline (its Nodes unreachable): since when (controller-kit/site-offline.ts). */
  readonly offlineSince?: string;
}

/** The per-site breakdown users read in the `svc.io/site-status` annotation. */
interface SiteCounts {
  readonly replicas: number;
  readonly updatedReplicas: number;
  readonly readyReplicas: number;
  readonly availableReplicas: number;
  /** The site is offline since then: its counts are the last it reported, and the Deployment's status leaves them out. */
  readonly offlineSince?: string;
}

export interface DeploymentStatusView {
  observedGeneration?: number;
  replicas?: number;
  updatedReplicas?: number;
  readyReplicas?: number;
  availableReplicas?: number;
  unavailableReplicas?: number;
  conditions?: DeploymentCondition[];
  collisionCount?: number;
}

function siteCounts(share: SiteShare): SiteCounts {
  const all = allOf(share);
  return {
    replicas: sum(all, 'statusReplicas'),
    updatedReplicas: share.placed ? (share.newRS?.statusReplicas ?? 0) : 0,
    readyReplicas: sum(all, 'readyReplicas'),
    availableReplicas: sum(all, 'availableReplicas'),
    ...(share.offlineSince === undefined ? {} : { offlineSince: share.offlineSince }),
  };
}

/** Set beside `svc.io/site-status` when sites were left out of it: how many. */
export const SITE_STATUS_OMITTED_ANNOTATION = 'svc.io/site-status-omitted';
/** The annotations the Deployment controller writes on the Deployment (never copied to its ReplicaSets). */
export const SITE_STATUS_ANNOTATIONS: ReadonlySet<string> = new Set([SITE_STATUS_ANNOTATION, SITE_STATUS_OMITTED_ANNOTATION]);
/** The most the per-site breakdown may take (kube allows 256 KiB of annotations in all). */
const SITE_STATUS_MAX_BYTES = 128 * 1024;

/**
 * The per-site breakdown, `{"<site>": {replicas, updatedReplicas, readyReplicas,
 * availableReplicas}, …}` with sites in name order. When it would exceed `maxBytes` (some
 * 1,500 sites), the sites where every one of `replicas` pods is updated and available are
 * left out, then — should it still be too long — the last sites by name; `omitted` says how
 * many sites are missing.
 */
export function siteStatusJson(shares: readonly SiteShare[], replicas: number, maxBytes = SITE_STATUS_MAX_BYTES): { json: string; omitted: number } {
  const ordered = [...shares].sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0)).map((share) => ({ share, counts: siteCounts(share) }));
  const render = (entries: typeof ordered): string => JSON.stringify(Object.fromEntries(entries.map((e) => [e.share.site, e.counts])));
  const full = render(ordered);
  if (full.length <= maxBytes) return { json: full, omitted: 0 };
  const settled = (e: (typeof ordered)[number]): boolean =>
    e.share.placed &&
    e.share.offlineSince === undefined &&
    e.counts.replicas === replicas && e.counts.updatedReplicas === replicas && e.counts.readyReplicas === replicas && e.counts.availableReplicas === replicas;
  const kept: typeof ordered = [];
  let size = 2;
  for (const entry of ordered.filter((e) => !settled(e))) {
    const length = JSON.stringify(entry.share.site).length + JSON.stringify(entry.counts).length + 2;
    if (size + length > maxBytes) break;
    kept.push(entry);
    size += length;
  }
  return { json: render(kept), omitted: ordered.length - kept.length };
}

export interface StatusInput {
  readonly name: string;
  readonly generation: number;
  /** spec.replicas (per site). */
  readonly replicas: number;
  readonly strategy: RolloutStrategy;
  readonly progressDeadlineSeconds?: number;
  readonly shares: readonly SiteShare[];
  readonly previous: DeploymentStatusView;
  /** Conditions as this sync left them (paused/resumed, found/created new ReplicaSet). */
  readonly conditions: readonly DeploymentCondition[];
  /** Whether a rollout step ran (kube's syncRolloutStatus) rather than a resize only (syncDeploymentStatus). */
  readonly rollout: boolean;
  readonly replicaFailure?: { readonly reason: string; readonly message: string };
  readonly collisionCount?: number;
  readonly now: Date;
}

/**
 * The Deployment's status, summed over its reachable sites (kube's calculateStatus and, for a
 * rollout, syncRolloutStatus). Replicas are per site, so "complete" means every reachable
 * placed site runs `replicas` updated, available pods and no other; Available means every
 * reachable placed site has its minimum (replicas − maxUnavailable) available, and some site
 * is reachable (or none is placed). Offline sites (`offlineSince`) are deferred: their counts
 * are left out (they are the last the site reported; `svc.io/site-status` keeps them) and the
 * condition `SitesOffline` names them (see offlineCondition). Also returns when to look again
 * for the progress deadline.
 */
export function deploymentStatus(input: StatusInput): { status: DeploymentStatusView; requeueAfterMs?: number } {
  const now = metav1Time(input.now);
  const reachable = input.shares.filter((s) => s.offlineSince === undefined);
  const counts = reachable.map(siteCounts);
  const total = (field: 'replicas' | 'updatedReplicas' | 'readyReplicas' | 'availableReplicas'): number => counts.reduce((t, c) => t + c[field], 0);
  const placed = reachable.filter((s) => s.placed);
  const specTotal = reachable.reduce((t, s) => t + sum(allOf(s), 'specReplicas'), 0);
  const status: DeploymentStatusView = {
    observedGeneration: input.generation,
    replicas: total('replicas'),
    updatedReplicas: total('updatedReplicas'),
    readyReplicas: total('readyReplicas'),
    availableReplicas: total('availableReplicas'),
    unavailableReplicas: Math.max(0, specTotal - total('availableReplicas')),
    ...(input.collisionCount === undefined ? {} : { collisionCount: input.collisionCount }),
  };
  const minimum = input.replicas - maxUnavailableOf(input.strategy, input.replicas);
  const allOffline = placed.length === 0 && input.shares.some((s) => s.placed);
  const available = !allOffline && placed.every((s) => siteCounts(s).availableReplicas >= minimum);
  let conditions = offlineCondition(input.conditions, input.shares, now);
  conditions = available
    ? setCondition(conditions, newCondition('Available', 'True', REASONS.minimumAvailable, 'Deployment has minimum availability.', now))
    : setCondition(conditions, newCondition('Available', 'False', REASONS.minimumUnavailable, 'Deployment does not have minimum availability.', now));
  let requeueAfterMs: number | undefined;
  const deadline = input.progressDeadlineSeconds;
  // With every placed site offline there is nothing to judge progress by: Progressing stays as it was.
  if (input.rollout && !allOffline) {
    if (deadline === undefined) conditions = removeCondition(conditions, 'Progressing');
    else ({ conditions, requeueAfterMs } = progressing(input, status, conditions, placed, deadline));
  }
  conditions = input.replicaFailure === undefined ? removeCondition(conditions, 'ReplicaFailure') : setCondition(conditions, newCondition('ReplicaFailure', 'True', input.replicaFailure.reason, input.replicaFailure.message, now));
  status.conditions = conditions;
  return requeueAfterMs === undefined ? { status } : { status, requeueAfterMs };
}

function progressing(input: StatusInput, status: DeploymentStatusView, conditions: DeploymentCondition[], placed: readonly SiteShare[], deadline: number): { conditions: DeploymentCondition[]; requeueAfterMs?: number } {
  const now = metav1Time(input.now);
  const current = conditionOf(conditions, 'Progressing');
  if (status.replicas === status.updatedReplicas && current?.reason === REASONS.newRSAvailable) return { conditions };
  const newNames = placed.flatMap((s) => (s.newRS === undefined ? [] : [s.newRS.name]));
  const subject = newNames.length === 1 ? `ReplicaSet "${newNames[0] ?? ''}"` : `Deployment "${input.name}"`;
  const desired = input.replicas * placed.length;
  const complete = status.updatedReplicas === desired && status.replicas === desired && status.availableReplicas === desired;
  const previous = input.previous;
  const advanced =
    (status.updatedReplicas ?? 0) > (previous.updatedReplicas ?? 0) ||
    (status.replicas ?? 0) - (status.updatedReplicas ?? 0) < (previous.replicas ?? 0) - (previous.updatedReplicas ?? 0) ||
    (status.readyReplicas ?? 0) > (previous.readyReplicas ?? 0) ||
    (status.availableReplicas ?? 0) > (previous.availableReplicas ?? 0);
  if (complete) return { conditions: setCondition(conditions, newCondition('Progressing', 'True', REASONS.newRSAvailable, `${subject} has successfully progressed.`, now)) };
  if (advanced) {
    const next = newCondition('Progressing', 'True', REASONS.replicaSetUpdated, `${subject} is progressing.`, now);
    const kept = current?.status === 'True' ? { ...next, lastTransitionTime: current.lastTransitionTime } : next;
    return withDeadline([...removeCondition(conditions, 'Progressing'), kept], input.now, deadline);
  }
  const since = Date.parse(current?.lastUpdateTime ?? '');
  const timedOut = current !== undefined && current.reason !== REASONS.newRSAvailable && (current.reason === REASONS.timedOut || (Number.isFinite(since) && since + deadline * 1000 < input.now.getTime()));
  if (timedOut) return { conditions: setCondition(conditions, newCondition('Progressing', 'False', REASONS.timedOut, `${subject} has timed out progressing.`, now)) };
  return withDeadline(conditions, input.now, deadline);
}

/** kube's requeueStuckDeployment: look again when the progress deadline of a rollout in progress passes. */
function withDeadline(conditions: DeploymentCondition[], now: Date, deadline: number): { conditions: DeploymentCondition[]; requeueAfterMs?: number } {
  const current = conditionOf(conditions, 'Progressing');
  if (current === undefined || current.status !== 'True' || current.reason === REASONS.newRSAvailable) return { conditions };
  const since = Date.parse(current.lastUpdateTime ?? '');
  if (!Number.isFinite(since)) return { conditions };
  return { conditions, requeueAfterMs: Math.max(0, since + deadline * 1000 - now.getTime()) + 1000 };
}

/** The offline sites of a Deployment, each with since when, in site order. */
export function offlineSites(shares: readonly SiteShare[]): Array<{ readonly site: string; readonly since: string }> {
  const offline = shares.flatMap((s) => (s.offlineSince === undefined ? [] : [{ site: s.site, since: s.offlineSince }]));
  return offline.sort((a, b) => (a.site < b.site ? -1 : a.site > b.site ? 1 : 0));
}

/**
 * The `SitesOffline` condition (ours; kube has none): absent while no site of the Deployment
 * has been offline; True (`SitesUnreachable`) naming each offline site and since when, while
 * some are; False (`AllSitesReachable`) once they are all back. Its message changes (and
 * lastUpdateTime with it) when the set of offline sites does.
 */
function offlineCondition(conditions: readonly DeploymentCondition[], shares: readonly SiteShare[], now: string): DeploymentCondition[] {
  const offline = offlineSites(shares);
  const current = conditionOf(conditions, 'SitesOffline');
  if (offline.length === 0) {
    return current === undefined ? [...conditions] : setCondition(conditions, newCondition('SitesOffline', 'False', REASONS.allSitesReachable, 'Every site of the Deployment is reachable.', now));
  }
  const reachable = shares.filter((s) => s.placed && s.offlineSince === undefined).length;
  const names = offline.map((o) => `${o.site} (offline since ${o.since})`).join(', ');
  const message = `${offline.length} site(s) offline, their replicas deferred until they return: ${names}; status counts the ${reachable} reachable site(s)`;
  const next = newCondition('SitesOffline', 'True', REASONS.sitesUnreachable, message, now);
  if (current?.status === 'True' && current.message === message) return [...conditions];
  return [...removeCondition(conditions, 'SitesOffline'), current?.status === 'True' ? { ...next, lastTransitionTime: current.lastTransitionTime } : next];
}

function allOf(share: SiteShare): readonly RsView[] {
  return share.newRS === undefined ? share.oldRSs : [...share.oldRSs, share.newRS];
}
