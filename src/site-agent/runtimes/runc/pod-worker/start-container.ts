import { rm } from 'node:fs/promises';
import type { Container } from '../../../../api/pod-spec-types.js';
import { nextRestartDelay, type ContainerRecord, type ContainerTermination } from '../../kubelet/index.js';
import {
  ContainerCommandError,
  ContainerConfigError,
  containerEnvironment,
  containerStdio,
  instanceDir,
  SiteContainers,
  type ContainerInstance,
  type DownwardFacts,
  type RuncContainers,
  seccompChoice,
} from '../containers/index.js';
import { parseImageReference, type ResolvedImage } from '../images/index.js';
import { hookTarget, runLifecycleHook } from '../probes/index.js';
import { podResolvConfFile } from '../sandbox/index.js';
import { isSidecar, sidecarPodSpec } from '../sidecar/index.js';
import { VolumeMountError } from '../volumes/index.js';
import { stopContainers } from './container-exits.js';
import { recordOf, specOf, type PodContext } from './pod-context.js';

/** How long a container that cannot be configured (its image, its environment) waits before the next try. */
const CONFIG_RETRY_MS = 10_000;

function containerOf(context: PodContext, name: string): Container | undefined {
  const spec = specOf(context.pod());
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])].find((c) => c.name === name);
}

function downwardFacts(context: PodContext): DownwardFacts {
  const pod = context.pod();
  const spec = specOf(pod);
  const { record } = context.state;
  return {
    name: record.name,
    namespace: record.namespace,
    uid: context.uid,
    nodeName: spec.nodeName ?? '',
    serviceAccountName: spec.serviceAccountName ?? 'default',
    podIP: record.podIP ?? '',
    hostIP: record.hostIP,
    labels: pod.metadata.labels ?? {},
    annotations: pod.metadata.annotations ?? {},
  };
}

/** The pod's grace period (terminationGracePeriodSeconds, default 30 s), in ms. */
export function graceMsOf(context: PodContext): number {
  return (specOf(context.pod()).terminationGracePeriodSeconds ?? 30) * 1000;
}

/**
 * kubelet's startContainer for one container of a sync's plan, with kubelet's statuses and
 * Events at each outcome:
 * - its image: the site's store, else the host's programs with `--host-image`, else
 *   `ErrImageNeverPull` (tried again in 10 s);
 * - its binds (hosts, resolv.conf, volume mounts), for the sidecar its launch in the injected
 *   container's place, its environment: a spec that cannot be made is
 *   `CreateContainerConfigError` (tried again in 10 s);
 * - created under conmon (its exit watched), started: `running`, `Created` / `Started`;
 *   a restart raises its crash back-off; its probes start; its postStart hook runs;
 * - runc's refusal: `terminated` `ContainerCannotRun` (exit 128) and the back-off, as
 *   dockershim reported a container that could not start.
 */
export async function startContainer(context: PodContext, name: string, now: number): Promise<void> {
  const container = containerOf(context, name);
  const record = recordOf(context, name);
  const sandbox = context.state.sandbox;
  if (container === undefined || record === undefined || sandbox === undefined) return;
  const previous = record.current.kind === 'terminated' ? record.current.termination : record.lastTermination;
  const restart = previous === undefined ? 0 : record.restartCount + 1;
  const sidecar = isSidecar(container);
  const image = sidecar ? undefined : await context.site.images.resolve(record.image);
  if (image === undefined && !sidecar && !context.site.images.hostImage) return refuseImage(context, name, record, now);
  try {
    const instance = await createInstance(context, container, image, restart);
    await context.site.containers.start(instance);
    started(context, container, record, { instance, image, previous, restart }, now);
    if (restart >= 2) await rm(instanceDir(context.podDir, name, restart - 2), { recursive: true, force: true });
    if (container.lifecycle?.postStart != null) await postStart(context, container, instance.id);
  } catch (error) {
    await notStarted(context, name, record, { error, previous, restart }, now);
  }
}

function refuseImage(context: PodContext, name: string, record: ContainerRecord, now: number): void {
  record.current = { kind: 'waiting', reason: 'ErrImageNeverPull', message: `image "${record.image}" is not in the site's image store: import it with "edgeplane image import", or run the site with --host-image` };
  context.events.once({ container: name }, 'Warning', 'ErrImageNeverPull', `Container image "${record.image}" is not present with pull policy of Never: import it with "edgeplane image import" (sites pull from no registry)`);
  context.wakeAt(now + CONFIG_RETRY_MS);
}

/** Binds, launch and environment of the instance, then its creation under conmon; the instance is recorded and its exit watched. */
async function createInstance(context: PodContext, container: Container, image: ResolvedImage | undefined, restart: number): Promise<ContainerInstance> {
  const { site, services, state } = context;
  const pod = context.pod();
  const name = container.name ?? '';
  const binds = await site.volumes.mounts(pod, container, context.podDir, state.volumeDirs, podResolvConfFile(context.podDir));
  let launched = container;
  if (isSidecar(container)) {
    const ref = { cluster: context.cluster, name: state.record.name, uid: context.uid };
    const prepared = await site.sidecar.prepare(pod, ref, context.runDir, container, state.sandbox?.userRange?.hostId);
    if (prepared.notShared !== undefined) context.events.once({ pod: 'identity' }, 'Warning', 'IdentityNotShared', prepared.notShared);
    binds.push(...prepared.binds);
    launched = prepared.launched;
    context.watches.watchSidecar(context.runDir);
  }
  const spec = specOf(pod);
  const env = containerEnvironment(spec, container, downwardFacts(context), await services.objectsOf(context.cluster));
  const sandbox = state.sandbox as NonNullable<typeof state.sandbox>;
  const created = await site.containers.create({
    podUid: context.uid,
    podName: state.record.name,
    podDir: context.podDir,
    podSpec: isSidecar(container) ? sidecarPodSpec(spec) : spec,
    container,
    launched,
    image,
    restart,
    binds,
    env,
    // The sidecar is the platform's: RuntimeDefault whatever the workload's profile.
    seccomp: isSidecar(container) ? { type: 'RuntimeDefault' } : seccompChoice(spec, pod.metadata.annotations ?? {}, container),
    sandbox,
    qosClass: state.record.qosClass,
    stdio: containerStdio(container),
  });
  const instance: ContainerInstance = { ...created, startedAt: services.timers.now() };
  state.instances.set(name, instance);
  context.watches.watchExit(name, instance);
  return instance;
}

interface StartedInstance {
  readonly instance: ContainerInstance;
  readonly image: ResolvedImage | undefined;
  readonly previous: ContainerTermination | undefined;
  readonly restart: number;
}

/** The container runs: its record, back-off, Events and probes. */
function started(context: PodContext, container: Container, record: ContainerRecord, start: StartedInstance, now: number): void {
  const { instance, image, previous, restart } = start;
  const name = container.name ?? '';
  const sidecar = isSidecar(container);
  const { events, state } = context;
  if (previous !== undefined) {
    record.restartCount = restart;
    record.lastTermination = previous;
    state.backoff.set(name, nextRestartDelay(state.backoff.get(name), now));
  }
  record.current = { kind: 'running', startedAt: instance.startedAt, containerID: `runc://${instance.id}` };
  if (!sidecar && state.record.containers.includes(record)) state.workloadStarted = true;
  if (image !== undefined) events.record('Normal', 'Pulled', `Container image "${record.image}" already present on machine`);
  else if (!sidecar) events.once({ container: name, aspect: 'image' }, 'Normal', 'HostImage', `Container image "${record.image}" is not in the site's image store: the container runs on the host's programs (read-only /usr, /bin, /lib*), imageID host://`);
  events.record('Normal', 'Created', `Created container ${name}`);
  events.record('Normal', 'Started', `Started container ${name}`);
  events.forget({ container: name });
  record.imageID = image === undefined ? 'host://' : `${parseImageReference(record.image).repository}@${image.digest}`;
  const probed = !sidecar && (container.startupProbe ?? container.livenessProbe ?? container.readinessProbe) !== undefined;
  if (probed) context.prober.track(name, { container, id: instance.id, startedAt: instance.startedAt, record });
  else {
    context.prober.untrack(name);
    record.started = true;
    record.ready = !sidecar;
  }
}

/** The container could not be made or started: a config error waits; anything else is ContainerCannotRun and the back-off. */
interface StartFailure {
  readonly error: unknown;
  readonly previous: ContainerTermination | undefined;
  readonly restart: number;
}

async function notStarted(context: PodContext, name: string, record: ContainerRecord, failure: StartFailure, now: number): Promise<void> {
  const { error, previous, restart } = failure;
  const { events, services, site, state } = context;
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ContainerConfigError || error instanceof VolumeMountError) {
    record.current = { kind: 'waiting', reason: 'CreateContainerConfigError', message };
    events.once({ container: name }, 'Warning', 'Failed', `Error: ${message}`);
    // What the user is not shown (host paths: a subPath's symlink found on the way) is for the site's operator.
    if (error instanceof VolumeMountError && error.detail !== undefined) services.logger.warn({ pod: context.key, container: name, err: message, detail: error.detail }, 'volume mount refused');
    context.wakeAt(now + CONFIG_RETRY_MS);
    return;
  }
  const id = state.instances.get(name)?.id ?? SiteContainers.idOf(context.uid, name, restart);
  state.instances.delete(name);
  context.watches.unwatchExit(name);
  await site.containers.runc.delete(id, true).catch(() => undefined);
  if (previous !== undefined) {
    record.restartCount = restart;
    record.lastTermination = previous;
  }
  const reason = error instanceof ContainerCommandError ? error.reason : message;
  record.current = { kind: 'terminated', termination: { exitCode: 128, reason: 'ContainerCannotRun', message: reason, startedAt: now, finishedAt: now, containerID: `runc://${id}` } };
  const backoff = nextRestartDelay(state.backoff.get(name), now);
  state.backoff.set(name, backoff);
  context.wakeAt(now + backoff.delayMs);
  events.record('Warning', 'Failed', `Error: ${reason}`);
  services.logger.warn({ pod: context.key, container: name, err: message }, 'container could not start');
}

/** Runs the container's preStop hook (exec or httpGet), bounded by `deadline`; a failure is a FailedPreStopHook Event. */
export async function preStop(context: PodContext, name: string, deadline: number): Promise<void> {
  const container = (specOf(context.pod()).containers ?? []).find((c) => c.name === name);
  const instance = context.state.instances.get(name);
  if (container?.lifecycle?.preStop == null || instance === undefined) return;
  const failure = await runLifecycleHook(container.lifecycle.preStop, deadline - context.services.timers.now(), targetOf(context, container, instance.id));
  if (failure !== undefined) context.events.record('Warning', 'FailedPreStopHook', failure);
}

/**
 * kubelet's postStart: right after the start, within the grace period; a failure is a
 * FailedPostStartHook Event and the container killed (preStop, SIGTERM, grace, SIGKILL), its
 * restart policy deciding the rest.
 */
async function postStart(context: PodContext, container: Container, id: string): Promise<void> {
  const { timers } = context.services;
  const graceMs = graceMsOf(context);
  const failure = await runLifecycleHook(container.lifecycle?.postStart ?? {}, graceMs, targetOf(context, container, id));
  if (failure === undefined) return;
  context.events.record('Warning', 'FailedPostStartHook', failure);
  context.events.record('Normal', 'Killing', 'FailedPostStartHook');
  await preStop(context, container.name ?? '', timers.now() + graceMs);
  await stopContainers(context, [container.name ?? ''], timers.now() + graceMs);
}

function targetOf(context: PodContext, container: Container, id: string): ReturnType<typeof hookTarget> {
  const { site, services } = context;
  const exec = (command: readonly string[], timeoutMs: number): ReturnType<RuncContainers['exec']> => site.containers.runc.exec(id, command, timeoutMs);
  return hookTarget(context.state.record, container, { dial: site.dial, exec, timers: services.timers });
}
