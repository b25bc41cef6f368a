/** A PodStatus as JSON (what a runtime rendered, or the control plane's copy). */
type Json = Record<string, unknown>;

interface ContainerView {
  readonly name?: string;
  readonly ready?: boolean;
  readonly started?: boolean;
  readonly restartCount?: number;
  readonly state?: { running?: unknown; waiting?: { reason?: string }; terminated?: { exitCode?: number; reason?: string } };
}

const TERMINAL = new Set(['Succeeded', 'Failed']);

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The container's state as the site sees it: its kind, a waiting container's reason, a terminated one's exit code and reason. */
function stateOf(container: ContainerView): string {
  const state = container.state ?? {};
  if (state.terminated !== undefined) return `terminated:${state.terminated.exitCode ?? ''}:${text(state.terminated.reason)}`;
  if (state.running !== undefined) return 'running';
  if (state.waiting !== undefined) return `waiting:${text(state.waiting.reason)}`;
  return '';
}

/** The fields of each container's status the site owns, by container name, in a comparable form. */
function containersOf(list: unknown): Map<string, string> {
  const containers = Array.isArray(list) ? (list as ContainerView[]) : [];
  return new Map(containers.map((c) => [text(c.name), `${c.ready === true}|${c.started === true}|${c.restartCount ?? 0}|${stateOf(c)}`]));
}

function sameContainers(reported: unknown, server: unknown): boolean {
  const ours = containersOf(reported);
  const theirs = containersOf(server);
  if (ours.size !== theirs.size) return false;
  for (const [name, view] of ours) if (theirs.get(name) !== view) return false;
  return true;
}

/** The status of each condition type, by type. */
function conditionsOf(list: unknown): Map<string, string> {
  const conditions = Array.isArray(list) ? (list as Array<{ type?: string; status?: string }>) : [];
  return new Map(conditions.map((c) => [text(c.type), text(c.status)]));
}

/**
 * Whether the control plane's copy of a pod's status (`server`) differs from the status the
 * site's runtime last reported (`reported`) in what the site owns — phase, reason, hostIP,
 * podIP, the statuses of the conditions it reports (conditions only the control plane sets are
 * its own), and each container's ready, started, restart count and state — so the runtime
 * must report its status again, as kubelet's status manager re-syncs a pod whose API-server
 * copy differs from its cache (`needsReconcile`). Timestamps, messages, image IDs and container
 * IDs are left out: the server may normalize them and they say nothing the site must correct.
 * A copy the control plane ended (Succeeded or Failed while the site's is not) is not fought:
 * a pod never leaves a terminal phase (kubelet refuses to). Nothing reported yet: no drift.
 * Pure.
 */
export function podStatusDrifted(reported: Json | undefined, server: Json | undefined): boolean {
  if (reported === undefined) return false;
  const theirs = server ?? {};
  const phase = text(reported['phase']);
  const serverPhase = text(theirs['phase']);
  if (TERMINAL.has(serverPhase) && !TERMINAL.has(phase)) return false;
  if (phase !== serverPhase || text(reported['reason']) !== text(theirs['reason'])) return true;
  if (text(reported['hostIP']) !== text(theirs['hostIP']) || text(reported['podIP']) !== text(theirs['podIP'])) return true;
  const serverConditions = conditionsOf(theirs['conditions']);
  for (const [type, status] of conditionsOf(reported['conditions'])) if (serverConditions.get(type) !== status) return true;
  return !sameContainers(reported['containerStatuses'], theirs['containerStatuses']) || !sameContainers(reported['initContainerStatuses'], theirs['initContainerStatuses']);
}

/** The status (`True`, `False`, …) of a status's condition of `type`; '' without one. Pure. */
export function conditionStatusOf(status: Json | undefined, type: string): string {
  return conditionsOf(status?.['conditions']).get(type) ?? '';
}

/** How many reported statuses the control plane's copy may lag behind without being drift. */
const RECENT = 4;

/**
 * The statuses a runtime reported last for one pod, newest first, to tell the control plane's
 * copy of the pod drifting from it ({@link podStatusDrifted} against every one of them) from an
 * echo of an older report still on its way in the pod watch (the newer report follows it).
 */
export class ReportedStatuses {
  private recent: Json[] = [];

  /** The newest status reported (undefined: none yet). */
  get newest(): Json | undefined {
    return this.recent[0];
  }

  /** The runtime reported `status`. */
  note(status: Json): void {
    this.recent = [status, ...this.recent.slice(0, RECENT - 1)];
  }

  /**
   * Whether `server` (the control plane's copy) differs in what the site owns from every recent
   * report: the runtime must report again. A copy with no hostIP holds no report of a site yet
   * (the pod as bound; the first report is on its way): not drift.
   */
  drifted(server: Json | undefined): boolean {
    if (text(server?.['hostIP']) === '') return false;
    return this.recent.length > 0 && this.recent.every((reported) => podStatusDrifted(reported, server));
  }
}
