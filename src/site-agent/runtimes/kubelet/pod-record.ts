import type { QosClass } from '../../../api/pod-spec-qos.js';

/** How a container instance ended, as kubelet reports it in `terminated` / `lastState`. */
export interface ContainerTermination {
  readonly exitCode: number;
  /** `Completed` (0), `Error`, `OOMKilled`, or kubelet's start failures (`ContainerCannotRun`). */
  readonly reason: string;
  readonly message?: string;
  readonly startedAt: number;
  readonly finishedAt: number;
  readonly containerID: string;
}

/** A container's state as core/v1 ContainerState has it: one of waiting, running, terminated. */
export type ContainerState =
  | { readonly kind: 'waiting'; readonly reason: string; readonly message?: string }
  | { readonly kind: 'running'; readonly startedAt: number; readonly containerID: string }
  | { readonly kind: 'terminated'; readonly termination: ContainerTermination };

/** What a runtime knows of one container of a pod (every instance it ran). Times in epoch ms. */
export interface ContainerRecord {
  readonly name: string;
  readonly image: string;
  imageID: string;
  restartCount: number;
  current: ContainerState;
  lastTermination?: ContainerTermination;
  /** Passed its readiness probe (or has none and runs); the sidecar: READY. */
  ready: boolean;
  /** Passed its startup probe (or has none) since it started. */
  started: boolean;
}

/**
 * What a runtime knows of one pod, enough to write its status (see {@link renderPodStatus}):
 * the runc runtime keeps one per pod and changes it as its worker acts; the simulated
 * runtime derives one from its state machine's state.
 */
export interface PodRecord {
  readonly uid: string;
  readonly name: string;
  readonly namespace: string;
  readonly hostIP: string;
  readonly qosClass: QosClass;
  readonly restartPolicy: 'Always' | 'OnFailure' | 'Never';
  /** The pod's PodScheduled transition time, as the control plane wrote it. */
  readonly scheduledAt: string;
  podIP?: string;
  startTime?: number;
  /** When every init container had succeeded (immediately for pods without any). */
  initializedAt?: number;
  readyChangedAt: number;
  readonly initContainers: ContainerRecord[];
  readonly containers: ContainerRecord[];
  /**
   * A pod-level failure (kubelet's `reason`/`message` on the status), e.g. an unusable spec;
   * `final`: the pod will never run (kubelet's admission refused it: `SysctlForbidden`), so
   * its phase is Failed.
   */
  failure?: { readonly reason: string; readonly message: string; readonly final?: boolean };
  /** The pod was evicted (its local storage over a limit): phase Failed, reason `Evicted`, this message; it never runs again. */
  evicted?: { readonly message: string };
}
