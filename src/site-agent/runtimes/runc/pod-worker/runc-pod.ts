import { existsSync, type FSWatcher, watch } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { KubeObject } from '../../../../apimachinery/object.js';
import { podQosClass } from '../../../../api/pod-spec-qos.js';
import type { Container, PodSpec } from '../../../../api/pod-spec-types.js';
import type { ClusterRef } from '../../../../site-api/site-api-types.js';
import { containerEnvironment, ContainerConfigError, type DownwardFacts } from '../containers/container-env.js';
import { unmountContainerRoot } from '../images/container-root.js';
import { parseImageReference } from '../images/image-reference.js';
import type { PodParts } from '../pod-parts.js';
import { containerFiles, podContainerId, type PodSandbox } from '../sandbox/pod-sandbox.js';
import { podHostsFile } from '../sandbox/pod-hosts.js';
import { writePodResolvConf } from '../sandbox/pod-dns-files.js';
import { removePodTraces } from './pod-cleanup.js';
import { crashLoopBackOff, nextRestartDelay, podReady, renderPodStatus, restartWaitUntil, type ContainerRecord, type ContainerTermination, type PodRecord, type RestartBackoff } from '../../kubelet/index.js';
import { metav1Time } from '../../../../apimachinery/meta-time.js';
import { ContainerCommandError, type ContainerFiles } from '../containers/runc-containers.js';
import { isSidecar, SIDECAR_CONTAINER as SIDECAR_NAME } from '../sidecar/sidecar-launch.js';
import { ContainerProbes } from '../probes/probe-state.js';
import { runDueProbes } from '../probes/pod-probe-runner.js';
import { PodEvents } from './pod-events.js';
import { containerMounts, setUpPodVolumes } from '../volumes/pod-volume-mounts.js';
import { rotateContainerLogIfNeeded } from '../containers/container-log-rotation.js';
import { VolumeError } from '../volumes/volume-error.js';
import { writeContainerBundle } from '../containers/container-bundle.js';
import { prepareSidecarStart, readSidecarState } from '../sidecar/sidecar-start.js';
import { hookTarget, runLifecycleHook } from '../probes/lifecycle-hooks.js';
import type { PodStreamView } from '../streams/pod-stream-view.js';
import { containerStdio, NO_STDIO, type ContainerStdio } from '../containers/container-stdio.js';

/** One started instance of a container. */
interface Instance {
  readonly id: string;
  readonly files: ContainerFiles;
  readonly startedAt: number;
  /** The overlay root over an image (none for host-image containers). */
  readonly root?: string;
}

/** What survives an agent restart in the pod's folder (`pod-state.json`). */
interface SavedPod {
  readonly record: PodRecord;
  readonly sandbox: PodSandbox;
  readonly instances: Record<string, Instance>;
  readonly backoff: Record<string, RestartBackoff>;
}

const STATE_FILE = 'pod-state.json';
/** How often a stopping container is checked for its exit. */
const STOP_POLL_MS = 100;
/** How long SIGKILL is given to end a container before the runtime deletes it by force. */
const KILL_WAIT_MS = 5000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const specOf = (pod: KubeObject): PodSpec => (pod['spec'] ?? {}) as PodSpec;

function newRecord(name: string, image: string, sidecar: boolean): ContainerRecord {
  return { name, image, imageID: '', restartCount: 0, current: { kind: 'waiting', reason: sidecar ? 'ContainerCreating' : 'PodInitializing' }, ready: false, started: false };
}

/**
 * One pod of a runc site, as kubelet's pod worker runs it: its sandbox, the injected sidecar
 * first (the other containers wait until it is READY, as native sidecars), init containers in
 * order, then the app containers, restarted per restartPolicy with kubelet's crash back-off;
 * on deletion SIGTERM, the grace period, SIGKILL, the sidecar last, and every trace removed.
 * Work is serialised: each trigger (the pod changed, a container exited, the sidecar's state
 * changed, a back-off ended) runs one sync, and triggers during a sync run one more after it.
 */
export class RuncPod {
  private record: PodRecord;
  private sandbox: PodSandbox | undefined;
  private readonly instances = new Map<string, Instance>();
  private readonly backoff = new Map<string, RestartBackoff>();
  private readonly watchers = new Map<string, FSWatcher>();
  /** Probe trackers of running containers that have probes, by container name. */
  private readonly probes = new Map<string, ContainerProbes>();
  private cancelProbeWake: (() => void) | undefined;
  /** The host folder of each volume, by name, once set up. */
  private readonly volumeDirs = new Map<string, string>();
  private pod: KubeObject;
  private running: Promise<void> = Promise.resolve();
  private queued = false;
  private stopping: { readonly graceMs: number; readonly report: boolean } | undefined;
  private finished = false;
  private adoptionTried = false;
  private lastReport = '';
  private lastSaved = '';
  private lastReady = false;
  private cancelWake: (() => void) | undefined;
  private readonly events: PodEvents;

  constructor(
    readonly key: string,
    private readonly cluster: ClusterRef,
    pod: KubeObject,
    private readonly parts: PodParts,
  ) {
    this.pod = pod;
    const spec = specOf(pod);
    const now = parts.services.timers.now();
    const scheduled = ((pod['status'] as { conditions?: Array<{ type?: string; lastTransitionTime?: string }> } | undefined)?.conditions ?? []).find((c) => c.type === 'PodScheduled')?.lastTransitionTime;
    this.record = {
      uid: pod.metadata.uid ?? '',
      name: pod.metadata.name ?? '',
      namespace: this.cluster.namespace,
      hostIP: parts.site.network.gateway,
      qosClass: podQosClass(spec),
      restartPolicy: (spec.restartPolicy as PodRecord['restartPolicy'] | undefined) ?? 'Always',
      scheduledAt: scheduled ?? metav1Time(now),
      readyChangedAt: now,
      initContainers: (spec.initContainers ?? []).map((c) => newRecord(c.name ?? '', c.image ?? '', false)),
      containers: (spec.containers ?? []).map((c) => newRecord(c.name ?? '', c.image ?? '', isSidecar(c))),
    };
    this.events = new PodEvents(parts.services.sink, { cluster, name: this.record.name, uid: this.record.uid });
  }

  get uid(): string {
    return this.record.uid;
  }

  /** The pod's virtual cluster and address, once it has a sandbox. */
  get network(): { readonly cluster: ClusterRef; readonly ip: string } | undefined {
    return this.record.podIP === undefined ? undefined : { cluster: this.cluster, ip: this.record.podIP };
  }

  /** The name of the site the pod runs on. */
  get site(): string {
    return this.parts.site.name;
  }

  private get podDir(): string {
    return this.parts.site.sandboxes.podDir(this.uid);
  }

  private get runDir(): string {
    return join(this.podDir, 'sidecar-run');
  }

  /** What the pod's streams (logs, exec, attach, port-forward) need: its record, running instances and sandbox, now. */
  streamView(): PodStreamView {
    const spec = specOf(this.pod);
    const stdioOf = (name: string): ContainerStdio => {
      const container = [...(spec.containers ?? []), ...(spec.initContainers ?? [])].find((c) => c.name === name);
      return container === undefined ? NO_STDIO : containerStdio(container);
    };
    const running = new Map([...this.instances].map(([name, instance]) => [name, { id: instance.id, files: instance.files, stdio: stdioOf(name) }] as const));
    const sandbox = this.sandbox === undefined ? undefined : { infraId: this.sandbox.infraId, netnsPath: this.sandbox.netnsPath };
    return { uid: this.uid, name: this.record.name, namespace: this.record.namespace, podDir: this.podDir, record: this.record, running, ...(sandbox === undefined ? {} : { sandbox }) };
  }

  /** Takes over what an earlier agent left in the pod's folder; false when there is nothing usable. */
  private async adopt(): Promise<boolean> {
    const text = await readFile(join(this.podDir, STATE_FILE), 'utf8').catch(() => undefined);
    if (text === undefined) return false;
    const saved = JSON.parse(text) as SavedPod;
    const infra = await this.parts.site.containers.state(saved.sandbox.infraId).catch(() => undefined);
    if (infra?.status !== 'running') return false;
    this.record = saved.record;
    this.sandbox = saved.sandbox;
    for (const [name, instance] of Object.entries(saved.instances)) {
      this.instances.set(name, instance);
      this.watchExit(name, instance);
    }
    for (const [name, entry] of Object.entries(saved.backoff)) this.backoff.set(name, entry);
    if (this.sidecarSpec() !== undefined) this.watchSidecar();
    this.lastReady = this.isReady();
    this.parts.services.logger.info({ pod: this.key, containers: this.instances.size }, 'adopted a running pod');
    return true;
  }

  /** The control plane's latest pod (a deletion starts termination). */
  update(pod: KubeObject): void {
    this.pod = pod;
    if (pod.metadata.deletionTimestamp !== undefined && this.stopping === undefined) {
      const grace = pod.metadata.deletionGracePeriodSeconds ?? specOf(pod).terminationGracePeriodSeconds ?? 30;
      this.stopping = { graceMs: grace * 1000, report: true };
    }
    this.trigger();
  }

  /** The pod is gone from the control plane: stop it within `graceMs` and report nothing more. */
  remove(graceMs: number): Promise<void> {
    this.stopping = { graceMs: Math.min(graceMs, this.stopping?.graceMs ?? graceMs), report: false };
    this.trigger();
    return this.running;
  }

  /** Stops watching (the agent stops; the containers keep running under conmon). */
  detach(): void {
    this.finished = true;
    this.cancelWake?.();
    this.cancelProbeWake?.();
    for (const watcher of this.watchers.values()) watcher.close();
    this.watchers.clear();
  }

  /** Runs a sync now, or once more after the one running. */
  trigger(): void {
    if (this.queued || this.finished) return;
    this.queued = true;
    this.running = this.running.then(async () => {
      this.queued = false;
      if (this.finished) return;
      try {
        await this.sync();
      } catch (error) {
        this.parts.services.logger.error({ err: error, pod: this.key }, 'pod sync failed');
      }
    });
  }

  /** Rotates the logs of running containers that outgrew 10 MiB (kubelet keeps 5 files of each). */
  async rotateLogs(): Promise<void> {
    for (const instance of this.instances.values()) {
      await rotateContainerLogIfNeeded(instance.files).catch((error: unknown) => this.parts.services.logger.warn({ err: error, pod: this.key }, 'cannot rotate a container log'));
    }
  }

  /** A running container exited: true when its exit file is there (the periodic relist's check). */
  hasExited(): boolean {
    for (const instance of this.instances.values()) if (existsSync(join(instance.files.exitDir, instance.id))) return true;
    return false;
  }

  private async sync(): Promise<void> {
    if (!this.adoptionTried) {
      this.adoptionTried = true;
      // A pod an earlier agent ran: adopt it, or clear what it left before starting afresh.
      if (!(await this.adopt().catch(() => false))) await removePodTraces(this.parts.site, this.uid);
    }
    const now = this.parts.services.timers.now();
    await this.reap(now);
    if (this.stopping !== undefined) return this.terminate();
    if (this.sandbox === undefined && !(await this.createSandbox(now))) return this.report();
    if (!(await this.setUpVolumes(now))) return this.report();
    await this.startContainers(now);
    await this.save();
    this.report();
    this.scheduleProbes();
  }

  /** Arms one timer for the earliest due probe of the pod's containers. */
  private scheduleProbes(): void {
    this.cancelProbeWake?.();
    this.cancelProbeWake = undefined;
    let next: number | undefined;
    for (const tracker of this.probes.values()) {
      const at = tracker.nextDueAt();
      if (at !== undefined && (next === undefined || at < next)) next = at;
    }
    if (next === undefined || this.finished || this.stopping !== undefined) return;
    const { timers } = this.parts.services;
    this.cancelProbeWake = timers.schedule(() => void this.probeNow(), Math.max(0, next - timers.now()));
  }

  /** Runs the due probes outside the pod's sync (a slow probe holds nothing up); a readiness change syncs the pod. */
  private async probeNow(): Promise<void> {
    const spec = specOf(this.pod);
    const changed = await runDueProbes(this.probes, {
      site: this.parts.site,
      timers: this.parts.services.timers,
      events: this.events,
      podIP: this.record.podIP ?? '',
      graceMs: (spec.terminationGracePeriodSeconds ?? 30) * 1000,
      running: (name) => {
        const instance = this.instances.get(name);
        const container = (spec.containers ?? []).find((c) => c.name === name);
        return instance === undefined || container === undefined ? undefined : { container, id: instance.id, record: this.findRecord(name) };
      },
      current: (name, tracker) => this.probes.get(name) === tracker,
    });
    if (changed) this.trigger();
    else this.scheduleProbes();
  }

  private async createSandbox(now: number): Promise<boolean> {
    const { site } = this.parts;
    this.record.startTime ??= now;
    try {
      const address = await site.leases.lease(this.uid);
      await mkdir(this.podDir, { recursive: true, mode: 0o700 });
      this.sandbox = await site.sandboxes.create({ uid: this.uid, hostname: this.record.name.slice(0, 63), address });
      this.record.podIP = this.sandbox.address;
      await writeFile(join(this.podDir, 'etc-hosts'), podHostsFile(this.sandbox.address, this.record.name), { mode: 0o644 });
      await writePodResolvConf(this.podDir, specOf(this.pod), this.cluster, (cluster) => this.parts.services.nameserverFor?.(site.name, cluster));
      delete this.record.failure;
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.parts.services.logger.warn({ pod: this.key, err: message }, 'cannot create the pod sandbox; retrying');
      this.record.failure = { reason: 'FailedCreatePodSandBox', message: `Failed to create pod sandbox: ${message}` };
      this.events.once('\0sandbox', 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${message}`);
      this.wakeAt(now + 5000);
      return false;
    }
  }

  private sidecarSpec(): Container | undefined {
    return (specOf(this.pod).containers ?? []).find(isSidecar);
  }

  private async startContainers(now: number): Promise<void> {
    const spec = specOf(this.pod);
    const sidecar = this.sidecarSpec();
    const apps = (spec.containers ?? []).filter((c) => !isSidecar(c));
    const appsDone = this.record.initializedAt !== undefined && apps.every((c) => this.isFinal(this.containerRecord(c.name ?? '')));
    const initFailed = this.record.restartPolicy === 'Never' && this.record.initContainers.some((c) => c.current.kind === 'terminated' && c.current.termination.exitCode !== 0);
    if (sidecar !== undefined) {
      const record = this.containerRecord(SIDECAR_NAME);
      if (appsDone || initFailed) {
        // The workload is over: the sidecar goes too, as native sidecars do.
        if (this.instances.has(SIDECAR_NAME)) await this.stopContainers([SIDECAR_NAME], now + 10_000);
        return;
      }
      if (!this.instances.has(SIDECAR_NAME) && (this.mayStart(SIDECAR_NAME, record, now))) await this.start(sidecar, record, now);
      await readSidecarState(this.runDir, record, this.events);
      if (!record.ready) return;
    }
    if (this.record.initializedAt === undefined) {
      for (const container of spec.initContainers ?? []) {
        const name = container.name ?? '';
        const record = this.initRecord(name);
        if (this.instances.has(name)) return;
        if (record.current.kind === 'terminated' && record.current.termination.exitCode === 0) continue;
        if (record.current.kind === 'terminated' && this.record.restartPolicy === 'Never') return;
        if (this.mayStart(name, record, now)) await this.start(container, record, now);
        return;
      }
      this.record.initializedAt = now;
    }
    for (const container of apps) {
      const name = container.name ?? '';
      const record = this.containerRecord(name);
      if (this.instances.has(name) || this.isFinal(record)) continue;
      if (this.mayStart(name, record, now)) await this.start(container, record, now);
    }
  }

  /** A container that exited and will not run again under the restart policy. */
  private isFinal(record: ContainerRecord): boolean {
    if (record.current.kind !== 'terminated') return false;
    const policy = this.record.restartPolicy;
    return policy === 'Never' || (policy === 'OnFailure' && record.current.termination.exitCode === 0);
  }

  /** Whether the crash back-off lets the container start now; if not, it shows CrashLoopBackOff until the wake. */
  private mayStart(name: string, record: ContainerRecord, now: number): boolean {
    const last = record.current.kind === 'terminated' ? record.current.termination : record.lastTermination;
    if (last === undefined) return true;
    const until = restartWaitUntil(this.backoff.get(name), last.finishedAt);
    if (until === undefined || until <= now) return true;
    const delay = this.backoff.get(name)?.delayMs ?? 0;
    record.current = crashLoopBackOff(delay, name, this.record);
    record.lastTermination = last;
    record.ready = false;
    this.events.once(name, 'Warning', 'BackOff', 'Back-off restarting failed container');
    this.wakeAt(until);
    return false;
  }

  private async start(container: Container, record: ContainerRecord, now: number): Promise<void> {
    const name = container.name ?? '';
    const previous = record.current.kind === 'terminated' ? record.current.termination : record.lastTermination;
    const everRan = previous !== undefined;
    const restart = everRan ? record.restartCount + 1 : 0;
    const sandbox = this.sandbox as PodSandbox;
    const { site, services } = this.parts;
    const sidecar = isSidecar(container);
    const image = sidecar ? undefined : await site.images.resolve(record.image).catch(() => undefined);
    if (image === undefined && !sidecar && !site.hostImage) {
      record.current = { kind: 'waiting', reason: 'ErrImageNeverPull', message: `image "${record.image}" is not in the site's image store: import it with "edgeplane image import", or run the site with --host-image` };
      this.events.once(name, 'Warning', 'ErrImageNeverPull', `Container image "${record.image}" is not present with pull policy of Never: import it with "edgeplane image import" (sites pull from no registry)`);
      this.wakeAt(now + 10_000);
      return;
    }
    const id = podContainerId(this.uid, `${name}-${restart}`);
    const files = containerFiles(this.podDir, `${name}/${restart}`);
    try {
      const binds = await containerMounts(this.pod, container, this.podDir, this.volumeDirs);
      let launchContainer = container;
      if (sidecar) {
        const prepared = await prepareSidecarStart(this.parts, this.pod, { cluster: this.cluster, name: this.record.name, uid: this.uid }, this.runDir, this.events, container);
        binds.push(...prepared.binds);
        launchContainer = prepared.launched;
        this.watchSidecar();
      }
      const rootfs = await writeContainerBundle(this.parts, {
        pod: this.pod,
        container,
        launched: launchContainer,
        image,
        instanceDir: join(this.podDir, 'containers', name, String(restart)),
        files,
        binds,
        env: containerEnvironment(specOf(this.pod), container, this.downwardFacts(), await services.objectsOf(this.cluster)),
        sandbox,
        cgroupName: `${name}-${restart}`,
        uid: this.uid,
        podName: this.record.name,
        qosClass: this.record.qosClass,
      });
      await site.containers.create(id, files, containerStdio(container));
      const instance: Instance = { id, files, startedAt: services.timers.now(), ...(image === undefined ? {} : { root: rootfs }) };
      this.instances.set(name, instance);
      this.watchExit(name, instance);
      await site.containers.start(id);
      if (everRan) {
        record.restartCount = restart;
        record.lastTermination = previous;
        this.backoff.set(name, nextRestartDelay(this.backoff.get(name), now));
      }
      record.current = { kind: 'running', startedAt: instance.startedAt, containerID: `runc://${id}` };
      if (image !== undefined) this.events.record('Normal', 'Pulled', `Container image "${record.image}" already present on machine`);
      else if (!sidecar) this.events.once(`${name}/image`, 'Normal', 'HostImage', `Container image "${record.image}" is not in the site's image store: the container runs on the host's programs (read-only /usr, /bin, /lib*), imageID host://`);
      this.events.record('Normal', 'Created', `Created container ${name}`);
      this.events.record('Normal', 'Started', `Started container ${name}`);
      this.events.forget(name);
      const tracked = !sidecar && (container.startupProbe ?? container.livenessProbe ?? container.readinessProbe) !== undefined;
      if (tracked) this.probes.set(name, new ContainerProbes(container, instance.startedAt));
      else this.probes.delete(name);
      if (restart >= 2) await rm(join(this.podDir, 'containers', name, String(restart - 2)), { recursive: true, force: true });
      record.imageID = image === undefined ? 'host://' : `${parseImageReference(record.image).repository}@${image.digest}`;
      record.started = !tracked || (this.probes.get(name)?.started ?? true);
      record.ready = !sidecar && (!tracked || (this.probes.get(name)?.ready ?? false));
      if (container.lifecycle?.postStart != null) await this.postStart(container, id);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (error instanceof ContainerConfigError) {
        record.current = { kind: 'waiting', reason: 'CreateContainerConfigError', message };
        this.events.once(name, 'Warning', 'Failed', `Error: ${message}`);
        this.wakeAt(now + 10_000);
        return;
      }
      // As dockershim reported a container runc could not start: exit code 128, ContainerCannotRun (then back-off).
      const instance = this.instances.get(name);
      this.instances.delete(name);
      this.watchers.get(name)?.close();
      this.watchers.delete(name);
      await site.containers.delete(instance?.id ?? id, true).catch(() => undefined);
      record.restartCount = everRan ? restart : record.restartCount;
      if (everRan) record.lastTermination = previous;
      const reason = error instanceof ContainerCommandError ? error.reason : message;
      record.current = { kind: 'terminated', termination: { exitCode: 128, reason: 'ContainerCannotRun', message: reason, startedAt: now, finishedAt: now, containerID: `runc://${id}` } };
      this.backoff.set(name, nextRestartDelay(this.backoff.get(name), now));
      this.wakeAt(now + (this.backoff.get(name)?.delayMs ?? 10_000));
      this.events.record('Warning', 'Failed', `Error: ${reason}`);
      services.logger.warn({ pod: this.key, container: name, err: message }, 'container could not start');
    }
  }

  /** Sets up every volume; false, with the containers not yet started waiting in ContainerCreating, when one cannot be. */
  private async setUpVolumes(now: number): Promise<boolean> {
    const { site, services } = this.parts;
    try {
      const dirs = await setUpPodVolumes(site, await services.objectsOf(this.cluster), this.pod, this.podDir, this.record.namespace);
      for (const [name, dir] of dirs) this.volumeDirs.set(name, dir);
      this.events.forget('\0volumes');
      return true;
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      services.logger.warn({ pod: this.key, err: message, detail: error instanceof VolumeError ? error.detail : undefined }, 'cannot set up the pod\'s volumes; retrying');
      for (const record of [...this.record.initContainers, ...this.record.containers]) {
        if (record.current.kind === 'waiting' && record.lastTermination === undefined) record.current = { kind: 'waiting', reason: 'ContainerCreating', message: `MountVolume.SetUp failed: ${message}` };
      }
      this.events.once('\0volumes', 'Warning', 'FailedMount', `MountVolume.SetUp failed: ${message}`);
      this.wakeAt(now + 5000);
      return false;
    }
  }

  private downwardFacts(): DownwardFacts {
    const spec = specOf(this.pod);
    return {
      name: this.record.name,
      namespace: this.record.namespace,
      uid: this.uid,
      nodeName: spec.nodeName ?? '',
      serviceAccountName: spec.serviceAccountName ?? 'default',
      podIP: this.record.podIP ?? '',
      hostIP: this.record.hostIP,
      labels: this.pod.metadata.labels ?? {},
      annotations: this.pod.metadata.annotations ?? {},
    };
  }

  /** Records the exits of containers whose exit file conmon has written. */
  private async reap(now: number): Promise<void> {
    const { containers } = this.parts.site;
    for (const [name, instance] of [...this.instances]) {
      const exitCode = await containers.exitCode(instance.id, instance.files);
      if (exitCode === undefined) continue;
      const oom = await containers.oomKilled(instance.files);
      const termination: ContainerTermination = {
        exitCode,
        reason: oom ? 'OOMKilled' : exitCode === 0 ? 'Completed' : 'Error',
        startedAt: instance.startedAt,
        finishedAt: now,
        containerID: `runc://${instance.id}`,
      };
      this.instances.delete(name);
      this.probes.delete(name);
      this.watchers.get(name)?.close();
      this.watchers.delete(name);
      await containers.delete(instance.id, true).catch(() => undefined);
      if (instance.root !== undefined) await unmountContainerRoot(instance.root).catch((error: unknown) => this.parts.services.logger.warn({ err: error, pod: this.key }, 'cannot unmount a container root'));
      const record = this.findRecord(name);
      if (record !== undefined) {
        record.current = { kind: 'terminated', termination };
        record.ready = false;
      }
    }
  }

  /** SIGTERM to the named containers, SIGKILL to what is left at `deadline`; resolves when all have exited. */
  private async stopContainers(names: readonly string[], deadline: number): Promise<void> {
    const { containers } = this.parts.site;
    const { timers } = this.parts.services;
    const targets = names.map((name) => this.instances.get(name)).filter((i): i is Instance => i !== undefined);
    const exited = (i: Instance): boolean => existsSync(join(i.files.exitDir, i.id));
    await Promise.all(targets.map((i) => containers.kill(i.id, 'TERM').catch(() => undefined)));
    while (targets.some((i) => !exited(i)) && timers.now() < deadline) await sleep(STOP_POLL_MS);
    const left = targets.filter((i) => !exited(i));
    await Promise.all(left.map((i) => containers.kill(i.id, 'KILL', true).catch(() => undefined)));
    const killDeadline = Date.now() + KILL_WAIT_MS;
    while (left.some((i) => !exited(i)) && Date.now() < killDeadline) await sleep(STOP_POLL_MS);
    await this.reap(timers.now());
  }

  /** Stops everything (preStop hooks, SIGTERM, grace, SIGKILL; the sidecar last) and removes every trace of the pod. */
  private async terminate(): Promise<void> {
    const { services, site } = this.parts;
    const stopping = this.stopping as { graceMs: number; report: boolean };
    const deadline = services.timers.now() + stopping.graceMs;
    const apps = [...this.instances.keys()].filter((name) => name !== SIDECAR_NAME);
    if (stopping.report) for (const name of this.instances.keys()) this.events.record('Normal', 'Killing', `Stopping container ${name}`);
    await Promise.all(apps.map((name) => this.preStop(name, deadline)));
    await this.stopContainers(apps, deadline);
    await this.stopContainers([SIDECAR_NAME], Math.max(deadline, services.timers.now() + 2000));
    for (const instance of this.instances.values()) await site.containers.delete(instance.id, true).catch(() => undefined);
    this.instances.clear();
    this.detach();
    await removePodTraces(site, this.uid);
    if (!stopping.report) return;
    for (const record of [...this.record.containers, ...this.record.initContainers]) if (record.current.kind === 'running') record.ready = false;
    this.report(true);
    services.sink.terminated(this.key, { cluster: this.cluster, name: this.record.name, uid: this.uid });
  }

  /** Runs the container's preStop hook (exec or httpGet), bounded by the grace period; a failure is a FailedPreStopHook Event. */
  private async preStop(name: string, deadline: number): Promise<void> {
    const container = (specOf(this.pod).containers ?? []).find((c) => c.name === name);
    const instance = this.instances.get(name);
    if (container?.lifecycle?.preStop == null || instance === undefined) return;
    const failure = await runLifecycleHook(container.lifecycle.preStop, deadline - this.parts.services.timers.now(), hookTarget(this.parts.site, this.record, container, instance.id));
    if (failure !== undefined) this.events.record('Warning', 'FailedPreStopHook', failure);
  }

  /** kubelet's postStart: right after the start, within the grace period; a failure is a FailedPostStartHook Event and the container killed (preStop, SIGTERM, grace, SIGKILL), its restart policy deciding the rest. */
  private async postStart(container: Container, id: string): Promise<void> {
    const { timers } = this.parts.services;
    const graceMs = (specOf(this.pod).terminationGracePeriodSeconds ?? 30) * 1000;
    const failure = await runLifecycleHook(container.lifecycle?.postStart ?? {}, graceMs, hookTarget(this.parts.site, this.record, container, id));
    if (failure === undefined) return;
    this.events.record('Warning', 'FailedPostStartHook', failure);
    this.events.record('Normal', 'Killing', 'FailedPostStartHook');
    await this.preStop(container.name ?? '', timers.now() + graceMs);
    await this.stopContainers([container.name ?? ''], timers.now() + graceMs);
  }

  private watchExit(name: string, instance: Instance): void {
    try {
      this.watchers.set(name, watch(instance.files.exitDir, () => this.trigger()));
    } catch {
      // the relist notices the exit
    }
  }

  private watchSidecar(): void {
    if (this.watchers.has(SIDECAR_WATCH)) return;
    try {
      this.watchers.set(SIDECAR_WATCH, watch(this.runDir, () => this.trigger()));
    } catch {
      // the relist reads the state
    }
  }

  private wakeAt(at: number): void {
    this.cancelWake?.();
    this.cancelWake = this.parts.services.timers.schedule(() => this.trigger(), Math.max(0, at - this.parts.services.timers.now()));
  }

  private findRecord(name: string): ContainerRecord | undefined {
    return this.record.containers.find((c) => c.name === name) ?? this.record.initContainers.find((c) => c.name === name);
  }

  private containerRecord(name: string): ContainerRecord {
    return this.record.containers.find((c) => c.name === name) as ContainerRecord;
  }

  private initRecord(name: string): ContainerRecord {
    return this.record.initContainers.find((c) => c.name === name) as ContainerRecord;
  }

  private isReady(): boolean {
    return podReady(this.record);
  }

  private async save(): Promise<void> {
    if (this.sandbox === undefined) return;
    const saved: SavedPod = { record: this.record, sandbox: this.sandbox, instances: Object.fromEntries(this.instances), backoff: Object.fromEntries(this.backoff) };
    const text = JSON.stringify(saved);
    if (text === this.lastSaved) return;
    this.lastSaved = text;
    const file = join(this.podDir, STATE_FILE);
    await writeFile(`${file}.tmp`, text, { mode: 0o600 });
    await rename(`${file}.tmp`, file);
  }

  /** Sends the pod's status when it changed (always when `force`). */
  private report(force = false): void {
    const now = this.parts.services.timers.now();
    const ready = this.isReady();
    if (ready !== this.lastReady) {
      this.record.readyChangedAt = now;
      this.lastReady = ready;
    }
    const status = renderPodStatus(this.record, now);
    const text = JSON.stringify(status);
    if (!force && text === this.lastReport) return;
    this.lastReport = text;
    this.parts.services.sink.status(this.key, { cluster: this.cluster, name: this.record.name, uid: this.uid, status });
  }
}

const SIDECAR_WATCH = '\0sidecar-state';
