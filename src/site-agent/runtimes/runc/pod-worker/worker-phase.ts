/**
 * Where a pod's worker is in the pod's life, as kubelet's pod workers track it: syncing (the
 * pod should run), evicted (stopped for good by the eviction manager, phase Failed; the pod
 * stays in the control plane until deleted: `announced` when its status already says so, as
 * for a pod an earlier agent evicted), terminating (its containers are being stopped:
 * `report` when the control plane marked it for deletion and waits to hear it stopped, not when
 * it forgot the pod), and terminated (everything the pod left is removed; the worker is done).
 */
export type WorkerPhase =
  | { readonly kind: 'syncing' }
  | { readonly kind: 'evicted'; readonly message: string; readonly announced: boolean }
  | { readonly kind: 'terminating'; readonly graceMs: number; readonly report: boolean }
  | { readonly kind: 'terminated'; readonly report: boolean };

export type WorkerEvent =
  /** The eviction manager evicts the pod (its local storage over a limit). */
  | { readonly type: 'evicted'; readonly message: string }
  /** The control plane marked the pod for deletion with this grace period. */
  | { readonly type: 'deleted'; readonly graceMs: number }
  /** The pod is gone from the control plane (or replaced): stop it within `graceMs`, report nothing. */
  | { readonly type: 'forgotten'; readonly graceMs: number }
  /** Every container has stopped. */
  | { readonly type: 'stopped' };

/**
 * The worker's next phase, pure. Only a syncing pod is evicted; a deletion starts termination
 * once (an evicted pod's too); a pod forgotten while terminating keeps the shorter grace period
 * and is no longer reported; nothing comes back from terminated.
 */
export function nextPhase(phase: WorkerPhase, event: WorkerEvent): WorkerPhase {
  switch (event.type) {
    case 'evicted':
      return phase.kind === 'syncing' ? { kind: 'evicted', message: event.message, announced: false } : phase;
    case 'deleted':
      return phase.kind === 'syncing' || phase.kind === 'evicted' ? { kind: 'terminating', graceMs: event.graceMs, report: true } : phase;
    case 'forgotten':
      if (phase.kind === 'syncing' || phase.kind === 'evicted') return { kind: 'terminating', graceMs: event.graceMs, report: false };
      if (phase.kind === 'terminating') return { kind: 'terminating', graceMs: Math.min(phase.graceMs, event.graceMs), report: false };
      return phase;
    case 'stopped':
      return phase.kind === 'terminating' ? { kind: 'terminated', report: phase.report } : phase;
  }
}
