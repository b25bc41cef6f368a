import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import { SIDECAR_CONTAINER_NAME } from '../../../../api/sidecar-injection.js';
import { restartWaitUntil, type ContainerRecord, type ContainerTermination, type PodRecord, type RestartBackoff } from '../../kubelet/index.js';
import { haltedWithoutIdentity, holdsIdentity, type SidecarObservation } from './sidecar-rules.js';

/** What a pod's worker knows of it when it decides (kubelet's runtime PodStatus, beside the status record). */
export interface PodSnapshot {
  /** The containers' states as reported: exits reaped, the sidecar's readiness read. */
  readonly record: PodRecord;
  /** The pod has its sandbox (network namespace, address, infra container). */
  readonly sandbox: boolean;
  /** Containers with a live instance (started, exit not reaped yet). */
  readonly running: ReadonlySet<string>;
  /** The crash back-off entry of each container that restarted. */
  readonly backoff: ReadonlyMap<string, RestartBackoff>;
  /** Running containers that failed their liveness or startup probe, not yet killed for it. */
  readonly probeFailures: ReadonlyMap<string, { readonly probe: 'liveness' | 'startup'; readonly message: string }>;
  /** Running containers that have probes and no probe worker (an agent restart found them running). */
  readonly unprobed: ReadonlySet<string>;
  /**
   * An app container of this pod (this uid) has started on this site before — kept in the pod's
   * saved state across agent and machine restarts (`RuncPodState.workloadStarted`): its sidecar's
   * identity is not waited for again (default false: a brand-new pod).
   */
  readonly workloadStarted?: boolean;
  /** The injected sidecar's state file (undefined: no sidecar, or no file yet). */
  readonly sidecar?: SidecarObservation;
  /** When the control plane last listed the site's pods (its link is back): a sidecar with no identity started before restarts at once. */
  readonly linkReturnedAt?: number;
}

/** A container to start now: an init container, the injected sidecar, or an app container. */
interface ContainerToStart {
  readonly name: string;
  readonly init: boolean;
}

/** A running container to stop now, and why (the Event kubelet records with it). */
type ContainerToKill =
  /** The workload is over: the injected sidecar goes too (SIGTERM, at most 10 s, SIGKILL), as native sidecars do. */
  | { readonly name: string; readonly reason: 'WorkloadFinished'; readonly graceMs: number }
  /** A liveness or startup probe failed: SIGTERM now, SIGKILL after the pod's grace period; the restart policy decides the rest. */
  | { readonly name: string; readonly reason: 'ProbeFailed'; readonly message: string }
  /**
   * The sidecar has no identity and must start again: it halted for its retry budget
   * (`SidecarHalted`, restarted with the crash back-off, as kubelet restarts a failed
   * container), or the control plane answers again while it still bootstraps from before
   * (`LinkReturned`: restarted at once with a fresh token instead of waiting out its back-offs).
   */
  | { readonly name: string; readonly reason: 'SidecarHalted' | 'LinkReturned'; readonly message: string; readonly graceMs: number };

/** A container its crash back-off keeps from restarting until `until` (it shows CrashLoopBackOff). */
export interface ContainerBackOff {
  readonly name: string;
  readonly until: number;
  readonly delayMs: number;
  /** Its last termination, shown as `lastState`. */
  readonly last: ContainerTermination;
}

/**
 * What one sync of a pod does, in kubelet's SyncPod order (kuberuntime_manager.go's
 * podActions): the executor (sync-pod.ts) runs these steps in order and stops at the first
 * that fails.
 */
export interface PodActions {
  /** 1. The pod has no sandbox: make it (network namespace, address, infra, hosts and DNS files). */
  readonly createSandbox: boolean;
  /** 2. Set up (or refresh: configMap and secret updates) every volume before a container starts. */
  readonly setUpVolumes: boolean;
  /** 3. Containers to stop. */
  readonly kill: readonly ContainerToKill[];
  /** 4. Containers held back by their crash back-off. */
  readonly backOff: readonly ContainerBackOff[];
  /** 5. Every init container has succeeded: the pod is Initialized from now. */
  readonly initialized: boolean;
  /** 6. Containers to start, in order: the sidecar first, else the next init container, else the app containers. */
  readonly start: readonly ContainerToStart[];
  /** 7. Running containers whose probes to start. */
  readonly probe: readonly string[];
  /** Sync again at this time (a back-off ends), unless something happens before. */
  readonly wakeAt?: number;
}

/** How long the sidecar gets to stop once the workload is over. */
const SIDECAR_STOP_GRACE_MS = 10_000;

const isSidecar = (container: Container): boolean => container.name === SIDECAR_CONTAINER_NAME;

function recordOf(record: PodRecord, name: string): ContainerRecord | undefined {
  return record.containers.find((c) => c.name === name) ?? record.initContainers.find((c) => c.name === name);
}

/** A container that exited and will not run again under the restart policy. */
function isFinal(record: ContainerRecord | undefined, policy: PodRecord['restartPolicy']): boolean {
  if (record?.current.kind !== 'terminated') return false;
  return policy === 'Never' || (policy === 'OnFailure' && record.current.termination.exitCode === 0);
}

/** Whether a container that ran before may start again at `now`, else its back-off (kubelet's doBackOff). */
function backOffOf(name: string, record: ContainerRecord | undefined, snapshot: PodSnapshot, now: number): ContainerBackOff | undefined {
  const last = record?.current.kind === 'terminated' ? record.current.termination : record?.lastTermination;
  if (last === undefined) return undefined;
  const entry = snapshot.backoff.get(name);
  const until = restartWaitUntil(entry, last.finishedAt);
  if (until === undefined || until <= now) return undefined;
  return { name, until, delayMs: entry?.delayMs ?? 0, last };
}

class Plan {
  readonly kill: ContainerToKill[] = [];
  readonly backOff: ContainerBackOff[] = [];
  readonly start: ContainerToStart[] = [];
  initialized = false;

  constructor(
    private readonly snapshot: PodSnapshot,
    private readonly now: number,
  ) {}

  /** Starts the container, or holds it in its back-off (unless `now`). */
  startOrBackOff(name: string, init: boolean, now = false): void {
    const held = now ? undefined : backOffOf(name, recordOf(this.snapshot.record, name), this.snapshot, this.now);
    if (held === undefined) this.start.push({ name, init });
    else this.backOff.push(held);
  }
}

/**
 * The injected sidecar's part of a sync: stopped once the workload is over; restarted when it
 * halted for its retry budget (with its crash back-off) or when the control plane answers again
 * while it still has no identity from before (at once, back-off skipped); started when not
 * running. Returns whether the rest of the pod may start: once the sidecar is READY — or, in a
 * pod whose workload has started on this site before, once the sidecar runs (kubelet starts the
 * containers after a native sidecar that has started) or the pod was Initialized.
 */
function decideSidecar(sidecar: Container, snapshot: PodSnapshot, plan: Plan, workloadOver: boolean): boolean {
  const { record, running, linkReturnedAt } = snapshot;
  const name = sidecar.name ?? '';
  if (workloadOver) {
    if (running.has(name)) plan.kill.push({ name, reason: 'WorkloadFinished', graceMs: SIDECAR_STOP_GRACE_MS });
    return false;
  }
  const own = recordOf(record, name);
  const lastStart = own?.current.kind === 'running' ? own.current.startedAt : own?.current.kind === 'terminated' ? own.current.termination.startedAt : undefined;
  const fromBeforeLink = linkReturnedAt !== undefined && lastStart !== undefined && lastStart < linkReturnedAt && !holdsIdentity(snapshot.sidecar);
  if (!running.has(name)) plan.startOrBackOff(name, false, fromBeforeLink);
  else if (haltedWithoutIdentity(snapshot.sidecar)) {
    plan.kill.push({ name, reason: 'SidecarHalted', message: `The workload sidecar halted (${snapshot.sidecar?.reason ?? ''}), will be restarted`, graceMs: SIDECAR_STOP_GRACE_MS });
  } else if (fromBeforeLink) {
    plan.kill.push({ name, reason: 'LinkReturned', message: 'The control plane answers again: the workload sidecar, with no identity yet, is restarted to bootstrap at once', graceMs: SIDECAR_STOP_GRACE_MS });
  }
  if (snapshot.workloadStarted === true) return running.has(name) || record.initializedAt !== undefined;
  return own?.ready === true;
}

/**
 * Which containers start, in kubelet's order: the injected sidecar first, everything else
 * waiting for it ({@link decideSidecar}), and nothing once the workload is over (it is stopped
 * then); init containers one at a time; then the app containers.
 */
function decideStarts(spec: PodSpec, snapshot: PodSnapshot, plan: Plan): void {
  const { record, running } = snapshot;
  const sidecar = (spec.containers ?? []).find(isSidecar);
  const apps = (spec.containers ?? []).filter((c) => !isSidecar(c));
  const appsDone = record.initializedAt !== undefined && apps.every((c) => isFinal(recordOf(record, c.name ?? ''), record.restartPolicy));
  const initFailed = record.restartPolicy === 'Never' && record.initContainers.some((c) => c.current.kind === 'terminated' && c.current.termination.exitCode !== 0);
  if (sidecar !== undefined && !decideSidecar(sidecar, snapshot, plan, appsDone || initFailed)) return;
  if (record.initializedAt === undefined) {
    for (const container of spec.initContainers ?? []) {
      const name = container.name ?? '';
      const init = recordOf(record, name);
      if (running.has(name)) return;
      if (init?.current.kind === 'terminated' && init.current.termination.exitCode === 0) continue;
      if (init?.current.kind === 'terminated' && record.restartPolicy === 'Never') return;
      plan.startOrBackOff(name, true);
      return;
    }
    plan.initialized = true;
  }
  for (const container of apps) {
    const name = container.name ?? '';
    if (!running.has(name) && !isFinal(recordOf(record, name), record.restartPolicy)) plan.startOrBackOff(name, false);
  }
}

/**
 * kubelet's computePodActions for a runc pod, pure: from the pod's spec and what its worker
 * knows now, the steps of one sync.
 * - No sandbox: make it; volumes are set up (refreshed) on every sync.
 * - The injected sidecar runs first and everything else waits for it to be READY — in a pod
 *   whose workload has started on this site before (resumed after a machine restart), only for
 *   it to run; a sidecar that halted for its retry budget is restarted (crash back-off), one
 *   with no identity from before the control plane's return at once; once the workload is over
 *   (every app container done for good, or an init container failed under `restartPolicy:
 *   Never`) it is stopped and nothing starts.
 * - Init containers run one at a time, in order; each must succeed (restarted per the restart
 *   policy with back-off; under `Never` a failure ends the pod). Then the pod is Initialized.
 * - App containers start together; one that exited restarts per the restart policy, after its
 *   crash back-off (the first restart at once, then 10 s doubling to 5 min).
 * - A running container that failed its liveness or startup probe is killed.
 * - Running containers with probes and no probe worker get one.
 */
export function computePodActions(spec: PodSpec, snapshot: PodSnapshot, now: number): PodActions {
  const { running } = snapshot;
  const plan = new Plan(snapshot, now);
  for (const [name, failure] of snapshot.probeFailures) if (running.has(name)) plan.kill.push({ name, reason: 'ProbeFailed', message: failure.message });
  decideStarts(spec, snapshot, plan);
  const wakeAt = plan.backOff.reduce<number | undefined>((earliest, b) => (earliest === undefined || b.until < earliest ? b.until : earliest), undefined);
  return {
    createSandbox: !snapshot.sandbox,
    setUpVolumes: true,
    kill: plan.kill,
    backOff: plan.backOff,
    initialized: plan.initialized,
    start: plan.start,
    probe: [...snapshot.unprobed].filter((name) => running.has(name)),
    ...(wakeAt === undefined ? {} : { wakeAt }),
  };
}
