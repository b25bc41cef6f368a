import { dirname } from 'node:path';
import { metav1Time } from '../../../../apimachinery/meta-time.js';
import type { KubeObject } from '../../../../apimachinery/object.js';
import { podQosClass } from '../../../../api/pod-spec-qos.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import type { ClusterRef } from '../../../../site-api/site-api-types.js';
import { notStartedYet, PodEvents, podPhase, podReady, type ContainerRecord, type PodRecord } from '../../kubelet/index.js';
import type { SitePod } from '../../../service-proxy/index.js';
import { containerStdio, instanceDir, NO_STDIO, rotateContainerLogIfNeeded, type ContainerStdio } from '../containers/index.js';
import { PodProber } from '../probes/index.js';
import { isSidecar, sidecarRunDir } from '../sidecar/index.js';
import type { PodStreamView } from '../streams/index.js';
import { ContainerWatches } from './container-watches.js';
import { reapExits, stopContainers } from './container-exits.js';
import { removePodTraces } from './pod-cleanup.js';
import { specOf, type PodContext } from './pod-context.js';
import type { PodServices, RuncSite } from './pod-worker-deps.js';
import { PodWake } from './pod-wake.js';
import { PodStateFile, readSavedPod, workloadRanBefore, type RuncPodState } from './runc-pod-state.js';
import { StatusReporter } from './status-reporter.js';
import { SyncQueue } from './sync-queue.js';
import { syncPod } from './sync-pod.js';
import { terminatePod } from './terminate-pod.js';
import { nextPhase, type WorkerPhase } from './worker-phase.js';

/** A container not started yet: the sidecar shows ContainerCreating, the others PodInitializing until the pod is initialized. */
function containerRecord(container: Container): ContainerRecord {
  return { name: container.name ?? '', image: container.image ?? '', imageID: '', restartCount: 0, current: notStartedYet(isSidecar(container)), ready: false, started: false };
}

/** The message of a pod whose status says it was evicted (by an earlier agent), else undefined. */
function evictedMessage(pod: KubeObject): string | undefined {
  const status = pod['status'] as { phase?: string; reason?: string; message?: string } | undefined;
  return status?.phase === 'Failed' && status.reason === 'Evicted' ? (status.message ?? '') : undefined;
}

/** What the site's storage checks measure of a running pod: its spec, each container's folder and each volume's. */
export interface PodStorageView {
  readonly spec: PodSpec;
  readonly containers: ReadonlyMap<string, string>;
  readonly volumes: ReadonlyMap<string, string>;
}

/** The record of a pod the worker has just taken on. */
function newRecord(pod: KubeObject, hostIP: string, namespace: string, now: number): PodRecord {
  const spec = specOf(pod);
  const scheduled = ((pod['status'] as { conditions?: Array<{ type?: string; lastTransitionTime?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'PodScheduled')?.lastTransitionTime;
  return {
    uid: pod.metadata.uid ?? '',
    name: pod.metadata.name ?? '',
    namespace,
    hostIP,
    qosClass: podQosClass(spec),
    restartPolicy: (spec.restartPolicy as PodRecord['restartPolicy'] | undefined) ?? 'Always',
    scheduledAt: scheduled ?? metav1Time(now),
    readyChangedAt: now,
    initContainers: (spec.initContainers ?? []).map(containerRecord),
    containers: (spec.containers ?? []).map(containerRecord),
  };
}

/**
 * One pod of a runc site, as kubelet's pod worker runs it: one queue of work, each trigger
 * (the pod changed, a container exited, the sidecar's state changed, a probe's verdict, a
 * wake, the resync) one pass, in the worker's phase:
 * - syncing: {@link syncPod} — observe, decide (`computePodActions`), act;
 * - evicted: its containers killed, its status Failed / Evicted, every trace removed (its disk
 *   freed); it never runs again and waits for its deletion (a pod whose status already says it
 *   was evicted starts here: an agent restart does not run it again);
 * - terminating: {@link terminatePod} — preStop, SIGTERM, grace, SIGKILL, the sidecar last;
 * - terminated: every trace removed ({@link removePodTraces}) and, when the control plane
 *   waits for it, the stop reported; nothing more runs.
 * Its first pass adopts what an earlier agent left running (its saved state), or clears it.
 */
export class RuncPodWorker {
  private phase: WorkerPhase = { kind: 'syncing' };
  private podObject: KubeObject;
  private adoptionTried = false;
  /** The first pass has adopted what an earlier agent left, or cleared it. */
  private adoptionDone = false;
  /** {@link servicePod} after the last pass, as JSON. */
  private lastServing = 'null';
  /** The eviction's work is done (see {@link evicted}). */
  private evictionDone = false;
  /** The pod's status said it was evicted when the worker took it on (an earlier agent evicted it). */
  private readonly evictedBefore: boolean;
  private readonly queue: SyncQueue;
  private readonly wake: PodWake;
  private readonly context: PodContext;
  private readonly stateFile: PodStateFile;
  private readonly reporter: StatusReporter;
  /** When the control plane last listed the site's pods again ({@link controlPlaneListed}). */
  private linkReturnedAt: number | undefined;

  constructor(
    readonly key: string,
    readonly cluster: ClusterRef,
    pod: KubeObject,
    private readonly site: RuncSite,
    private readonly services: PodServices,
    /** Called after a pass that changed {@link servicePod} (a readiness flip reaches the site's Services at once). */
    private readonly servingChanged: () => void = () => undefined,
  ) {
    this.podObject = pod;
    const uid = pod.metadata.uid ?? '';
    const podDir = site.sandboxes.podDir(uid);
    const record = newRecord(pod, site.hostIP, cluster.namespace, services.timers.now());
    const evicted = evictedMessage(pod);
    this.evictedBefore = evicted !== undefined;
    if (evicted !== undefined) {
      this.phase = { kind: 'evicted', message: evicted, announced: true };
      record.evicted = { message: evicted };
    }
    const state: RuncPodState = { record, sandbox: undefined, instances: new Map(), backoff: new Map(), volumeDirs: new Map(), workloadStarted: false };
    this.queue = new SyncQueue(() => this.work(), (error) => services.logger.error({ err: error, pod: key }, 'pod sync failed'));
    this.wake = new PodWake(services.timers, () => this.trigger());
    this.stateFile = new PodStateFile(podDir);
    this.reporter = new StatusReporter(services.sink, { key, cluster, name: state.record.name, uid }, services.timers);
    const events = new PodEvents(services.sink, { cluster, name: state.record.name, uid });
    this.context = {
      key,
      cluster,
      uid,
      podDir,
      runDir: sidecarRunDir(podDir),
      site,
      services,
      events,
      state,
      prober: new PodProber({
        timers: services.timers,
        dial: site.dial,
        exec: (id, command, timeoutMs) => site.containers.runc.exec(id, command, timeoutMs),
        podIP: () => state.record.podIP ?? '',
        event: (reason, message) => events.record('Warning', reason, message),
        changed: () => this.trigger(),
      }),
      watches: new ContainerWatches(() => this.trigger()),
      pod: () => this.podObject,
      linkReturnedAt: () => this.linkReturnedAt,
      wakeAt: (at) => this.wake.request(at),
    };
  }

  get uid(): string {
    return this.context.uid;
  }

  /** The name of the site the pod runs on. */
  get siteName(): string {
    return this.site.name;
  }

  /**
   * The pod as the site's Service data plane plans it (while it has an address and is not
   * evicted): its labels, container ports, and readiness as the site's own probes say.
   */
  get servicePod(): SitePod | undefined {
    const { record } = this.context.state;
    const kind = this.phase.kind;
    if (record.podIP === undefined || (kind !== 'syncing' && kind !== 'terminating')) return undefined;
    const { metadata } = this.podObject;
    const ports = (specOf(this.podObject).containers ?? []).flatMap((c) => (c.ports ?? []).map((p) => ({ name: p.name ?? '', port: p.containerPort ?? 0, protocol: p.protocol ?? 'TCP' })));
    const terminating = kind === 'terminating' || metadata.deletionTimestamp !== undefined;
    const common = { cluster: this.cluster, ip: record.podIP, namespace: metadata.namespace ?? record.namespace, labels: metadata.labels ?? {}, ports };
    return { ...common, ready: !terminating && podReady(record), terminating, phase: podPhase(record), restartPolicy: record.restartPolicy };
  }

  /** Whether the worker knows what runs of its pod: its first pass adopted what an earlier agent left (or found nothing). */
  get settled(): boolean {
    return this.adoptionDone;
  }

  /** The control plane's latest pod (a deletion starts termination). */
  update(pod: KubeObject): void {
    this.podObject = pod;
    // The control plane's copy differs from what the pod really is (a lease expiry marked it
    // not Ready, a report was lost): say it again now, without waiting for the pod's sync.
    if (this.phase.kind === 'syncing' && pod.metadata.deletionTimestamp === undefined && this.reporter.reconcile(this.context.state.record, pod['status'] as Record<string, unknown> | undefined)) {
      this.services.logger.info({ pod: this.key }, 'the control plane\'s copy of the pod status differs from the site\'s; reported again');
    }
    if (pod.metadata.deletionTimestamp !== undefined) {
      const grace = pod.metadata.deletionGracePeriodSeconds ?? specOf(pod).terminationGracePeriodSeconds ?? 30;
      this.phase = nextPhase(this.phase, { type: 'deleted', graceMs: grace * 1000 });
    }
    this.trigger();
  }

  /** The pod is gone from the control plane: stop it within `graceMs` and report nothing more; resolves when done. */
  remove(graceMs: number): Promise<void> {
    this.phase = nextPhase(this.phase, { type: 'forgotten', graceMs });
    this.trigger();
    return this.queue.idle();
  }

  /** kubelet's eviction manager evicts the pod: it stops for good (a pod not running any more stays as it is). */
  evict(message: string): void {
    this.phase = nextPhase(this.phase, { type: 'evicted', message });
    this.trigger();
  }

  /** Where a running pod's bytes are, for the site's storage checks; undefined unless it runs (has its sandbox). */
  storage(): PodStorageView | undefined {
    const { state, podDir } = this.context;
    if (this.phase.kind !== 'syncing' || state.sandbox === undefined) return undefined;
    const spec = specOf(this.podObject);
    const names = [...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c) => c.name ?? '');
    return { spec, containers: new Map(names.map((name) => [name, dirname(instanceDir(podDir, name, 0))])), volumes: state.volumeDirs };
  }

  /** Stops working (the agent stops; the containers keep running under conmon for the next agent). */
  detach(): void {
    this.queue.stop();
    this.wake.close();
    this.context.prober.close();
    this.context.watches.close();
  }

  /**
   * The control plane listed the site's pods (it answers again): a sidecar that has no identity
   * from before — it was started while the control plane could not be reached, with the last
   * token its pod got, or halted — is restarted at once with a fresh token (pod-actions.ts).
   */
  controlPlaneListed(): void {
    this.linkReturnedAt = this.services.timers.now();
    this.trigger();
  }

  /** Runs a pass now, or once more after the one running. */
  trigger(): void {
    this.queue.trigger();
  }

  /** A running container exited: true when its exit file is there (the periodic relist's check). */
  hasExited(): boolean {
    for (const instance of this.context.state.instances.values()) if (this.site.containers.exited(instance)) return true;
    return false;
  }

  /** Rotates the logs of running containers that outgrew the site's rotation size (10 MiB, 5 files kept by default). */
  async rotateLogs(): Promise<void> {
    for (const instance of this.context.state.instances.values()) {
      await rotateContainerLogIfNeeded(instance.files, this.site.logRotation, new Date(this.services.timers.now())).catch((error: unknown) => this.services.logger.warn({ err: error, pod: this.key }, 'cannot rotate a container log'));
    }
  }

  /** What the pod's streams (logs, exec, attach, port-forward) need: its record, running instances and sandbox, now. */
  streamView(): PodStreamView {
    const spec: PodSpec = specOf(this.podObject);
    const { state, podDir } = this.context;
    const stdioOf = (name: string): ContainerStdio => {
      const container = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].find((c) => c.name === name);
      return container === undefined ? NO_STDIO : containerStdio(container);
    };
    const running = new Map([...state.instances].map(([name, instance]) => [name, { id: instance.id, files: instance.files, stdio: stdioOf(name) }] as const));
    const sandbox = state.sandbox === undefined ? undefined : { infraId: state.sandbox.infraId, netnsPath: state.sandbox.netnsPath };
    const { record } = state;
    return { uid: this.uid, name: record.name, namespace: record.namespace, podDir, record, running, ...(sandbox === undefined ? {} : { sandbox }) };
  }

  private async work(): Promise<void> {
    if (!this.adoptionTried) {
      this.adoptionTried = true;
      if (this.phase.kind !== 'evicted' && !(await this.adopt().catch(() => false))) await removePodTraces(this.site, this.uid);
      this.adoptionDone = true;
    }
    const now = this.services.timers.now();
    await reapExits(this.context, now);
    const phase = this.phase;
    if (phase.kind === 'syncing') {
      if (await syncPod(this.context, now)) await this.stateFile.save(this.context.state);
      this.reporter.report(this.context.state.record);
      const serving = JSON.stringify(this.servicePod ?? null);
      if (serving !== this.lastServing) {
        this.lastServing = serving;
        this.servingChanged();
      }
    } else if (phase.kind === 'evicted') {
      await this.evicted(phase.message, phase.announced);
    } else if (phase.kind === 'terminating') {
      await terminatePod(this.context, phase.graceMs, phase.report);
      this.phase = nextPhase(phase, { type: 'stopped' });
      await this.terminated(phase.report);
    }
  }

  /**
   * kubelet's eviction (killPodNow with a grace period of 0): a Warning Event `Evicted`, every
   * container killed at once (no preStop hook), the status Failed / Evicted with the message,
   * then every trace of the pod removed — containers, writable layers, logs, volumes, sandbox —
   * so its disk is freed. Once only; a pod an earlier agent evicted (`announced`) only loses
   * what is left of it.
   */
  private async evicted(message: string, announced: boolean): Promise<void> {
    if (this.evictionDone) return;
    this.evictionDone = true;
    const { state, events, prober, watches } = this.context;
    this.wake.close();
    prober.close();
    if (!announced) {
      events.record('Warning', 'Evicted', message);
      state.record.evicted = { message };
      await stopContainers(this.context, [...state.instances.keys()], this.services.timers.now());
      for (const container of [...state.record.containers, ...state.record.initContainers]) container.ready = false;
      this.reporter.report(state.record);
    }
    watches.close();
    await removePodTraces(this.site, this.uid);
    state.instances.clear();
    state.sandbox = undefined;
  }

  /** kubelet's SyncTerminatedPod: nothing of the pod is left; the control plane hears it stopped when it waits for that. */
  private async terminated(report: boolean): Promise<void> {
    this.detach();
    await removePodTraces(this.site, this.uid);
    if (!report) return;
    const { record } = this.context.state;
    for (const container of [...record.containers, ...record.initContainers]) if (container.current.kind === 'running') container.ready = false;
    // A pod an earlier agent evicted: its status is the control plane's already (this record knows nothing of it).
    if (!this.evictedBefore) this.reporter.report(record, true);
    this.services.sink.terminated(this.key, { cluster: this.cluster, name: record.name, uid: this.uid });
  }

  /** Takes over what an earlier agent left in the pod's folder; false when there is nothing usable (its infra container no longer runs). */
  private async adopt(): Promise<boolean> {
    const saved = await readSavedPod(this.context.podDir);
    if (saved === undefined) return false;
    const { state, watches } = this.context;
    // Kept whether the pod is adopted or made again (its machine restarted): its workload ran here.
    state.workloadStarted = workloadRanBefore(saved);
    const infra = await this.site.containers.runc.state(saved.sandbox.infraId).catch(() => undefined);
    if (infra?.status !== 'running') {
      if (state.workloadStarted) this.services.logger.info({ pod: this.key }, 'making a pod whose workload ran here again: its containers start without waiting for its sidecar\'s identity');
      return false;
    }
    state.record = saved.record;
    state.sandbox = saved.sandbox;
    // The site's filter holds a pod it admitted; one attached before it (an older agent) is admitted now.
    const owner = { cluster: this.cluster, namespace: saved.record.namespace, name: saved.record.name };
    await this.site.sandboxes.adopt(saved.sandbox, owner).catch((error: unknown) => this.services.logger.warn({ pod: this.key, err: error instanceof Error ? error.message : String(error) }, 'the site network filter does not hold an adopted pod: it cannot send'));
    for (const [name, instance] of Object.entries(saved.instances)) {
      state.instances.set(name, instance);
      watches.watchExit(name, instance);
    }
    for (const [name, entry] of Object.entries(saved.backoff)) state.backoff.set(name, entry);
    if ((specOf(this.podObject).containers ?? []).some(isSidecar)) watches.watchSidecar(this.context.runDir);
    this.reporter.restored(state.record);
    this.services.logger.info({ pod: this.key, containers: state.instances.size }, 'adopted a running pod');
    return true;
  }
}
