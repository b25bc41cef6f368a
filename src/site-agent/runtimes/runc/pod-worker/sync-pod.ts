import { ignoredFieldsMessage, ignoredPodFields, SysctlForbiddenError } from '../sandbox/index.js';
import { isSidecar } from '../sidecar/index.js';
import { VolumeError } from '../volumes/index.js';
import { crashLoopBackOff } from '../../kubelet/index.js';
import { killForProbe, stopContainers } from './container-exits.js';
import { haltedMessage, holdsIdentity, sidecarReady } from './sidecar-rules.js';
import { computePodActions, type ContainerBackOff, type PodActions, type PodSnapshot } from './pod-actions.js';
import { recordOf, specOf, type PodContext } from './pod-context.js';
import { graceMsOf, startContainer } from './start-container.js';

/** How long a sandbox or volume that could not be made waits before the next try. */
const RETRY_MS = 5000;

/** Reads what the worker decides from (its exits reaped already): the sidecar's readiness, the probes' verdicts. */
async function observe(context: PodContext): Promise<PodSnapshot> {
  const { state, site, events, prober } = context;
  const sidecar = (specOf(context.pod()).containers ?? []).find(isSidecar);
  const sidecarRecord = sidecar === undefined ? undefined : recordOf(context, sidecar.name ?? '');
  const sidecarState = sidecarRecord === undefined ? undefined : await site.sidecar.state(context.runDir);
  if (sidecarRecord !== undefined) {
    const halted = haltedMessage(sidecarState, state.workloadStarted);
    if (halted !== undefined) events.once({ pod: 'sidecar' }, 'Warning', 'SidecarHalted', halted);
    else if (holdsIdentity(sidecarState)) events.forget({ pod: 'sidecar' });
    sidecarRecord.ready = sidecarReady(sidecarState, sidecarRecord.current.kind === 'running', state.workloadStarted);
  }
  const spec = specOf(context.pod());
  const hasProbes = new Set((spec.containers ?? []).filter((c) => !isSidecar(c) && (c.startupProbe ?? c.livenessProbe ?? c.readinessProbe) !== undefined).map((c) => c.name ?? ''));
  const probeFailures = new Map([...prober.failures()].filter(([name, failure]) => state.instances.get(name)?.id === failure.instanceId));
  const unprobed = new Set([...state.instances].filter(([name, instance]) => hasProbes.has(name) && !prober.has(name, instance.id)).map(([name]) => name));
  const running = new Set(state.instances.keys());
  const observed = sidecarState === undefined ? {} : { sidecar: sidecarState };
  const link = context.linkReturnedAt() === undefined ? {} : { linkReturnedAt: context.linkReturnedAt() };
  const { record, backoff, workloadStarted } = state;
  return { record, sandbox: state.sandbox !== undefined, running, backoff, probeFailures, unprobed, workloadStarted, ...observed, ...link };
}

/**
 * kubelet's SyncPod for a runc pod (its exits reaped): observe, decide ({@link computePodActions}), then run the
 * plan's steps in order — 1 sandbox, 2 volumes, 3 kills, 4 back-offs, 5 Initialized,
 * 6 starts, 7 probes — stopping after a sandbox or volume that could not be made (tried again
 * in 5 s). Returns whether the steps all ran (the caller saves the state then).
 */
export async function syncPod(context: PodContext, now: number): Promise<boolean> {
  const actions = computePodActions(specOf(context.pod()), await observe(context), now);
  if (actions.createSandbox && !(await createSandbox(context, now))) return false;
  if (actions.setUpVolumes && !(await setUpVolumes(context, now))) return false;
  await runKills(context, actions, now);
  for (const held of actions.backOff) backOff(context, held);
  if (actions.initialized) context.state.record.initializedAt = now;
  for (const { name } of actions.start) await startContainer(context, name, now);
  for (const name of actions.probe) startProbes(context, name, now);
  if (actions.wakeAt !== undefined) context.wakeAt(actions.wakeAt);
  return true;
}

/** 1. kubelet's RunPodSandbox; a failure is the pod's `FailedCreatePodSandBox` (tried again), a forbidden sysctl its final `SysctlForbidden`. */
async function createSandbox(context: PodContext, now: number): Promise<boolean> {
  const { state, site, services } = context;
  const { record } = state;
  if (record.failure?.final === true) return false;
  record.startTime ??= now;
  try {
    const spec = specOf(context.pod());
    const pod = { uid: context.uid, name: record.name, namespace: record.namespace, spec, cluster: context.cluster };
    state.sandbox = await site.sandboxes.run({ ...pod, onAddress: (ip) => (record.podIP = ip) });
    delete record.failure;
    const ignored = ignoredPodFields(spec, context.pod().metadata.annotations ?? {}, state.sandbox.userRange !== undefined);
    if (ignored.length > 0) context.events.once({ pod: 'spec' }, 'Warning', 'FieldsIgnored', ignoredFieldsMessage(ignored));
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    delete record.podIP;
    if (error instanceof SysctlForbiddenError) {
      // kubelet's admission refusal: the pod never runs, and its spec cannot change.
      record.failure = { reason: 'SysctlForbidden', message, final: true };
      context.events.once({ pod: 'sandbox' }, 'Warning', 'SysctlForbidden', message);
      return false;
    }
    services.logger.warn({ pod: context.key, err: message }, 'cannot create the pod sandbox; retrying');
    record.failure = { reason: 'FailedCreatePodSandBox', message: `Failed to create pod sandbox: ${message}` };
    context.events.once({ pod: 'sandbox' }, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${message}`);
    context.wakeAt(now + RETRY_MS);
    return false;
  }
}

/** 2. Every volume set up (refreshed); one that cannot be keeps the containers not started yet in ContainerCreating with a `FailedMount` Event. */
async function setUpVolumes(context: PodContext, now: number): Promise<boolean> {
  const { state, site, services } = context;
  try {
    const owner = state.sandbox?.userRange?.hostId;
    const dirs = await site.volumes.setUp(context.pod(), await services.objectsOf(context.cluster), context.podDir, state.record.namespace, owner);
    for (const [name, dir] of dirs) state.volumeDirs.set(name, dir);
    context.events.forget({ pod: 'volumes' });
    return true;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    services.logger.warn({ pod: context.key, err: message, detail: error instanceof VolumeError ? error.detail : undefined }, 'cannot set up the pod\'s volumes; retrying');
    for (const record of [...state.record.initContainers, ...state.record.containers]) {
      if (record.current.kind === 'waiting' && record.lastTermination === undefined) record.current = { kind: 'waiting', reason: 'ContainerCreating', message: `MountVolume.SetUp failed: ${message}` };
    }
    context.events.once({ pod: 'volumes' }, 'Warning', 'FailedMount', `MountVolume.SetUp failed: ${message}`);
    context.wakeAt(now + RETRY_MS);
    return false;
  }
}

/**
 * 3. The sidecar once the workload is over, or to restart it with no identity (waited for); a
 * container that failed its probe (SIGTERM now, SIGKILL after the grace period).
 */
async function runKills(context: PodContext, actions: PodActions, now: number): Promise<void> {
  for (const kill of actions.kill) {
    if (kill.reason === 'ProbeFailed') {
      await killForProbe(context, kill.name, kill.message, graceMsOf(context));
      continue;
    }
    if (kill.reason !== 'WorkloadFinished') {
      context.events.record('Normal', 'Killing', kill.message);
      context.services.logger.info({ pod: context.key, reason: kill.reason }, 'restarting the workload sidecar, which has no identity');
    }
    await stopContainers(context, [kill.name], now + kill.graceMs);
  }
}

/** 4. kubelet's doBackOff: the container shows CrashLoopBackOff (a `BackOff` Warning once) until its back-off ends. */
function backOff(context: PodContext, held: ContainerBackOff): void {
  const record = recordOf(context, held.name);
  if (record === undefined) return;
  record.current = crashLoopBackOff(held.delayMs, held.name, context.state.record);
  record.lastTermination = held.last;
  // The sidecar's readiness is its rule's (sidecar-rules.ts): in a pod whose workload ran, one restarting after a halt keeps it in service.
  if (!isSidecar({ name: held.name })) record.ready = false;
  context.events.once({ container: held.name }, 'Warning', 'BackOff', 'Back-off restarting failed container');
}

/** 7. Probes of a container found running (an agent restart): they resume from its saved readiness. */
function startProbes(context: PodContext, name: string, now: number): void {
  const instance = context.state.instances.get(name);
  const container = (specOf(context.pod()).containers ?? []).find((c) => c.name === name);
  const record = recordOf(context, name);
  if (instance === undefined || container === undefined || record === undefined) return;
  context.prober.track(name, { container, id: instance.id, startedAt: instance.startedAt, record }, now);
}
