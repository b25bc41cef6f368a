/**
 * Where a pod's worker is in the pod's life, as kubelet's pod workers track it: syncing (the
 * pod should run), terminating (its containers are being stopped: `report` when the control
 * plane marked it for deletion and waits to hear it stopped, not when it forgot the pod), and
 * terminated (everything the pod left is removed; the worker is done).
 */
export type WorkerPhase =
  | { readonly kind: 'syncing' }
  | { readonly kind: 'terminating'; readonly graceMs: number; readonly report: boolean }
  | { readonly kind: 'terminated'; readonly report: boolean };

export type WorkerEvent =
  /** The control plane marked the pod for deletion with this grace period. */
  | { readonly type: 'deleted'; readonly graceMs: number }
  /** The pod is gone from the control plane (or replaced): stop it within `graceMs`, report nothing. */
  | { readonly type: 'forgotten'; readonly graceMs: number }
  /** Every container has stopped. */
  | { readonly type: 'stopped' };

/**
 * The worker's next phase, pure. A deletion starts termination once; a pod forgotten while
 * terminating keeps the shorter grace period and is no longer reported; nothing comes back
 * from terminated.
 */
export function nextPhase(phase: WorkerPhase, event: WorkerEvent): WorkerPhase {
  switch (event.type) {
    case 'deleted':
      return phase.kind === 'syncing' ? { kind: 'terminating', graceMs: event.graceMs, report: true } : phase;
    case 'forgotten':
      if (phase.kind === 'syncing') return { kind: 'terminating', graceMs: event.graceMs, report: false };
      if (phase.kind === 'terminating') return { kind: 'terminating', graceMs: Math.min(phase.graceMs, event.graceMs), report: false };
      return phase;
    case 'stopped':
      return phase.kind === 'terminating' ? { kind: 'terminated', report: phase.report } : phase;
  }
}
