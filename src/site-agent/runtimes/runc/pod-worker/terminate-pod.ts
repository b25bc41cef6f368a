import { stopContainers } from './container-exits.js';
import { specOf, type PodContext } from './pod-context.js';
import { preStop } from './start-container.js';
import { computeTermination } from './termination-actions.js';

/**
 * kubelet's SyncTerminatingPod (its exits reaped): `Killing` Events when the deletion is
 * reported, the workload's preStop hooks, SIGTERM, SIGKILL at the end of the grace period, then
 * the sidecar; whatever is left is removed by force.
 */
export async function terminatePod(context: PodContext, graceMs: number, report: boolean): Promise<void> {
  const { state, services, site } = context;
  const steps = computeTermination(specOf(context.pod()), [...state.instances.keys()], services.timers.now(), graceMs, report);
  for (const name of steps.announce) context.events.record('Normal', 'Killing', `Stopping container ${name}`);
  await Promise.all(steps.preStop.map((name) => preStop(context, name, steps.deadline)));
  await stopContainers(context, steps.stop, steps.deadline);
  await stopContainers(context, steps.stopLast, Math.max(steps.deadline, services.timers.now() + steps.sidecarMinGraceMs));
  for (const instance of state.instances.values()) await site.containers.runc.delete(instance.id, true).catch(() => undefined);
  state.instances.clear();
}
