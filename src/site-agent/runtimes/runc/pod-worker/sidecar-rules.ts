/** The injected sidecar's state as its state file says: the word of its `GET /status` and, for DEGRADED and HALTED, why. */
export interface SidecarObservation {
  /** `INITIALIZING`, `READY`, `DEGRADED` or `HALTED`; undefined before the sidecar wrote its file (or the file is unreadable). */
  readonly state?: string;
  readonly reason?: string;
}

/** The sidecar holds an identity and serves it (READY, or DEGRADED which still serves it). */
export function holdsIdentity(sidecar: SidecarObservation | undefined): boolean {
  return sidecar?.state === 'READY' || sidecar?.state === 'DEGRADED';
}

/** The sidecar gave up bootstrapping: its retry budget ended with no identity (it is restarted, with the crash back-off). */
export function haltedWithoutIdentity(sidecar: SidecarObservation | undefined): boolean {
  return sidecar?.state === 'HALTED' && (sidecar.reason ?? '').startsWith('RETRY_BUDGET_EXHAUSTED');
}

/**
 * Whether the injected sidecar's container counts as ready (for the pod's Ready condition and
 * so for the site's Services), pure:
 * - holding an identity (READY or DEGRADED) while its container runs: ready;
 * - in a pod whose workload has started on this site before (`workloadStarted`: a pod resumed
 *   after a machine restart, or one whose sidecar restarts under a running workload), a sidecar
 *   with no identity yet does not take the pod out of service: ready while it runs
 *   INITIALIZING (or has not written its state yet), and while it halted for its retry budget
 *   and is being restarted — the pod is Ready by its own containers' probes;
 * - otherwise (a brand-new pod, or a sidecar HALTED because its identity expired): not ready.
 */
export function sidecarReady(sidecar: SidecarObservation | undefined, running: boolean, workloadStarted: boolean): boolean {
  if (holdsIdentity(sidecar)) return running;
  if (!workloadStarted) return false;
  if (haltedWithoutIdentity(sidecar)) return true;
  return running && (sidecar?.state === undefined || sidecar.state === 'INITIALIZING');
}

/** The Warning a halted sidecar is worth (once), or undefined. */
export function haltedMessage(sidecar: SidecarObservation | undefined, workloadStarted: boolean): string | undefined {
  if (sidecar?.state !== 'HALTED') return undefined;
  const why = sidecar.reason === undefined ? '' : ` (${sidecar.reason})`;
  if (!haltedWithoutIdentity(sidecar)) return `The workload sidecar halted${why}: the pod has no identity and is not ready`;
  const serving = workloadStarted ? 'the workload keeps running' : 'the pod is not ready until it has an identity';
  return `The workload sidecar halted${why}: it is restarted with back-off and bootstraps when the control plane answers; ${serving}`;
}
