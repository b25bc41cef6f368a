/** The simulated runtime's model of one pod: what it knows of the pod, where it is, what happens to it. */

export type RestartPolicy = 'Always' | 'OnFailure' | 'Never';

export interface SimContainer {
  readonly name: string;
  /** The image as reported (`:latest` added when untagged, as the container runtime does). */
  readonly image: string;
  /** `simulated://<repository>@sha256:<digest of the image name>`. */
  readonly imageID: string;
  /** Running → ready: the runtime's ready delay, plus the readiness probe's initial delay. */
  readonly readyDelayMs: number;
}

/** What a pod looks like to the runtime: read once from the pod object when the site accepts it. */
export interface SimPodFacts {
  readonly name: string;
  readonly namespace: string;
  readonly uid: string;
  readonly containers: readonly SimContainer[];
  readonly initContainers: readonly SimContainer[];
  readonly restartPolicy: RestartPolicy;
  readonly qosClass: string;
  readonly hostIP: string;
  readonly podIP: string;
  /** RFC 3339 time of the PodScheduled condition the scheduler set. */
  readonly scheduledAt: string;
  /** A planned exit (Never/OnFailure pods, or the run-seconds annotation). */
  readonly run?: { readonly ms: number; readonly exitCode: number };
}

/** How a run of the pod's containers ended. Times in epoch ms. */
export interface SimTermination {
  readonly exitCode: number;
  readonly reason: 'Completed' | 'Error';
  readonly startedAt: number;
  readonly finishedAt: number;
  /** The restart count of the run that ended (names its container ID). */
  readonly run: number;
}

/**
 * Where the pod is. The containers of a pod share one lifecycle (they start, crash and
 * restart together); their readiness is per container.
 */
export type SimStage =
  | { readonly kind: 'Pending' }
  | { readonly kind: 'ContainerCreating' }
  /** Containers running; Ready once every container is ready. `exit`: when and how this run ends. */
  | { readonly kind: 'Running' | 'Ready'; readonly startedAt: number; readonly exit?: { readonly at: number; readonly exitCode: number } }
  /** The containers exited and will restart at `restartAt` (shown as terminated, then CrashLoopBackOff). */
  | { readonly kind: 'Exited' | 'BackOff'; readonly last: SimTermination; readonly restartAt: number; readonly backOffMs: number }
  | { readonly kind: 'Succeeded' | 'Failed'; readonly last: SimTermination }
  /** `was`: the stage the pod left when it was deleted (its containers run on until `stopAt`, or stopped at the state's `at`). */
  | { readonly kind: 'Terminating'; readonly stopAt: number; readonly was?: SimStage }
  | { readonly kind: 'Stopped'; readonly was?: SimStage };

export interface SimPodState {
  readonly facts: SimPodFacts;
  readonly stage: SimStage;
  /** When this state was reached (epoch ms); readiness is judged at this time. */
  readonly at: number;
  /** When the site accepted the pod (status.startTime). */
  readonly startTime?: number;
  /** When the pod became Initialized (init containers done). */
  readonly initializedAt?: number;
  readonly restartCount: number;
  /** The previous run's end (lastState). */
  readonly lastTermination?: SimTermination;
  /** Last change of the Ready and ContainersReady conditions. */
  readonly readyChangedAt: number;
  /** When the machine wants its next tick. */
  readonly wakeAt?: number;
}

export type SimEvent =
  /** The site accepted the pod (it is bound to one of its nodes). */
  | { readonly type: 'bound' }
  /** A wake time passed; `roll` ∈ [0, 1) decides whether a container start crashes. */
  | { readonly type: 'tick'; readonly roll: number }
  /** The pod is marked for deletion with this grace period. */
  | { readonly type: 'delete'; readonly graceMs: number };

/** The machine's answer: the next state, the status to report when it changed, whether the pod stopped for good. */
export interface SimStep {
  readonly state: SimPodState;
  readonly status?: Record<string, unknown>;
  readonly terminated?: boolean;
}

/** A pod the runtime has just accepted. */
export function initialSimPodState(facts: SimPodFacts, now: number): SimPodState {
  return { facts, stage: { kind: 'Pending' }, at: now, restartCount: 0, readyChangedAt: now };
}
