import type { ContainerStatusView, PodView } from './views.js';

/** `node.NodeUnreachablePodReason`: the reason the node controller gives pods of a lost node. */
const NODE_LOST_REASON = 'NodeLost';

export interface PodSummary {
  /** Containers ready and running. */
  ready: number;
  /** Containers in the spec. */
  total: number;
  /** The STATUS cell. */
  status: string;
  /** Restarts of the init containers while initializing, else of the app containers. */
  restarts: number;
}

function terminatedText(prefix: string, terminated: { reason?: string; exitCode?: number; signal?: number }): string {
  const { reason = '', signal = 0, exitCode = 0 } = terminated;
  if (reason !== '') return `${prefix}${reason}`;
  if (signal !== 0) return `${prefix}Signal:${signal}`;
  return `${prefix}ExitCode:${exitCode}`;
}

const succeeded = (c: ContainerStatusView): boolean => c.state?.terminated !== undefined && (c.state.terminated.exitCode ?? 0) === 0;

/**
 * While a pod initializes: the status of its first init container that has not succeeded
 * (`Init:<reason>`, `Init:Signal:N`, `Init:ExitCode:N`, or `Init:i/n`) and the restarts of
 * the init containers up to that one. Undefined once every init container succeeded.
 */
function initializing(statuses: readonly ContainerStatusView[], initContainers: number): { status: string; restarts: number } | undefined {
  let restarts = 0;
  for (const [i, container] of statuses.entries()) {
    restarts += container.restartCount ?? 0;
    if (succeeded(container)) continue;
    const { terminated, waiting } = container.state ?? {};
    const waitingReason = waiting?.reason ?? '';
    let status: string;
    if (terminated !== undefined) status = terminatedText('Init:', terminated);
    else if (waitingReason !== '' && waitingReason !== 'PodInitializing') status = `Init:${waitingReason}`;
    else status = `Init:${i}/${initContainers}`;
    return { status, restarts };
  }
  return undefined;
}

/**
 * kube-apiserver 1.17's pod row rules (`printPod`), the ones kubectl users know:
 * the status starts as `status.reason`, else the phase; an unfinished init container turns
 * it into `Init:…` (and only init restarts count); otherwise app containers are read from
 * last to first and the first one's waiting reason, terminated reason, or `Signal:N` /
 * `ExitCode:N` wins, ready+running ones count as ready, and `Completed` with a container
 * still running reads `Running`. A pod being deleted is `Terminating`, or `Unknown` when its
 * node was lost.
 */
export function podSummary(pod: PodView): PodSummary {
  const status = pod.status ?? {};
  const total = pod.spec?.containers?.length ?? 0;
  let reason = (status.reason ?? '') !== '' ? (status.reason ?? '') : (status.phase ?? '');
  let ready = 0;
  let restarts = 0;
  const init = initializing(status.initContainerStatuses ?? [], pod.spec?.initContainers?.length ?? 0);
  if (init !== undefined) {
    reason = init.status;
    restarts = init.restarts;
  } else {
    let hasRunning = false;
    for (const container of [...(status.containerStatuses ?? [])].reverse()) {
      restarts += container.restartCount ?? 0;
      const { waiting, terminated, running } = container.state ?? {};
      if ((waiting?.reason ?? '') !== '') {
        reason = waiting?.reason ?? '';
      } else if (terminated !== undefined) {
        reason = terminatedText('', terminated);
      } else if (container.ready === true && running !== undefined) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (pod.metadata.deletionTimestamp != null) {
    reason = status.reason === NODE_LOST_REASON ? 'Unknown' : 'Terminating';
  }
  return { ready, total, status: reason, restarts };
}
