import type { ContainerTermination } from '../../kubelet/index.js';
import { recordOf, type PodContext } from './pod-context.js';

/** How often a stopping container is checked for its exit. */
const STOP_POLL_MS = 100;
/** How long SIGKILL is given to end a container before the runtime deletes it by force. */
const KILL_WAIT_MS = 5000;

/**
 * kubelet's relist for one pod: records the exits of containers whose exit file conmon has
 * written (exit code, `OOMKilled` from conmon's oom file, `Completed` / `Error`), removes the
 * instances and their roots, stops their probes.
 */
export async function reapExits(context: PodContext, now: number): Promise<void> {
  const { site, state, services } = context;
  for (const [name, instance] of [...state.instances]) {
    const exit = await site.containers.exit(instance);
    if (exit === undefined) continue;
    const termination: ContainerTermination = {
      exitCode: exit.exitCode,
      reason: exit.oomKilled ? 'OOMKilled' : exit.exitCode === 0 ? 'Completed' : 'Error',
      startedAt: instance.startedAt,
      finishedAt: now,
      containerID: `runc://${instance.id}`,
    };
    state.instances.delete(name);
    context.prober.untrack(name);
    context.watches.unwatchExit(name);
    await site.containers.remove(instance).catch((error: unknown) => services.logger.warn({ err: error, pod: context.key }, 'cannot unmount a container root'));
    const record = recordOf(context, name);
    if (record !== undefined) {
      record.current = { kind: 'terminated', termination };
      record.ready = false;
    }
  }
}

/**
 * Stops the named running containers: SIGTERM, then SIGKILL to every process of those left at
 * `deadline` (given 5 s more), then reaps them. Resolves once all have exited or been given up.
 */
export async function stopContainers(context: PodContext, names: readonly string[], deadline: number): Promise<void> {
  const { site, services } = context;
  const { runc } = site.containers;
  const { timers } = services;
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => timers.schedule(resolve, ms));
  const targets = names.map((name) => context.state.instances.get(name)).filter((i) => i !== undefined);
  const exited = (instance: (typeof targets)[number]): boolean => site.containers.exited(instance);
  await Promise.all(targets.map((i) => runc.kill(i.id, 'TERM').catch(() => undefined)));
  while (targets.some((i) => !exited(i)) && timers.now() < deadline) await sleep(STOP_POLL_MS);
  const left = targets.filter((i) => !exited(i));
  await Promise.all(left.map((i) => runc.kill(i.id, 'KILL', true).catch(() => undefined)));
  const killDeadline = timers.now() + KILL_WAIT_MS;
  while (left.some((i) => !exited(i)) && timers.now() < killDeadline) await sleep(STOP_POLL_MS);
  await reapExits(context, timers.now());
}

/** A liveness or startup probe failed: SIGTERM now, SIGKILL after the pod's grace period (the exit is reaped as any other). */
export async function killForProbe(context: PodContext, name: string, message: string, graceMs: number): Promise<void> {
  const instance = context.state.instances.get(name);
  context.prober.failureHandled(name);
  if (instance === undefined) return;
  const { runc } = context.site.containers;
  context.events.record('Normal', 'Killing', `${message}, will be restarted`);
  await runc.kill(instance.id, 'TERM').catch(() => undefined);
  context.services.timers.schedule(() => void runc.kill(instance.id, 'KILL', true).catch(() => undefined), graceMs);
}
