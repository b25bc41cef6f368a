/** A Deployment condition (apps/v1 DeploymentCondition). */
export interface DeploymentCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly lastUpdateTime?: string;
  readonly lastTransitionTime?: string;
  readonly reason?: string;
  readonly message?: string;
}

/** kube's condition reasons for Deployments. */
export const REASONS = {
  newRSAvailable: 'NewReplicaSetAvailable',
  replicaSetUpdated: 'ReplicaSetUpdated',
  newRSCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumAvailable: 'MinimumReplicasAvailable',
  minimumUnavailable: 'MinimumReplicasUnavailable',
  /** Ours, for the `Placed` condition: the placement references resolve to no site (the Deployment stays where it runs). */
  noSiteMatches: 'NoSiteMatches',
  /** Ours: the placement references resolve to sites again. */
  sitesMatched: 'SitesMatched',
  /** Ours, for the `SitesOffline` condition: some sites of the Deployment are offline (their Nodes unreachable). */
  sitesUnreachable: 'SitesUnreachable',
  /** Ours: every site of the Deployment is reachable again. */
  allSitesReachable: 'AllSitesReachable',
} as const;

export function conditionOf(conditions: readonly DeploymentCondition[], type: string): DeploymentCondition | undefined {
  return conditions.find((c) => c.type === type);
}

/**
 * kube's SetDeploymentCondition: a condition with the same status and reason as the current
 * one changes nothing (its times and message stay); the same status keeps the transition
 * time; otherwise it replaces the current one.
 */
export function setCondition(conditions: readonly DeploymentCondition[], next: DeploymentCondition): DeploymentCondition[] {
  const current = conditionOf(conditions, next.type);
  if (current !== undefined && current.status === next.status && current.reason === next.reason) return [...conditions];
  const kept = current !== undefined && current.status === next.status ? { ...next, lastTransitionTime: current.lastTransitionTime } : next;
  return [...conditions.filter((c) => c.type !== next.type), kept];
}

export function removeCondition(conditions: readonly DeploymentCondition[], type: string): DeploymentCondition[] {
  return conditions.filter((c) => c.type !== type);
}

export function newCondition(type: string, status: DeploymentCondition['status'], reason: string, message: string, now: string): DeploymentCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}
